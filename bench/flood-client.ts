import { connect, type Socket } from "node:net";
import { NODE_ID_HEADER } from "../packages/protocol/src/index.ts";
import type { FloodCommand, FloodCounters, FloodReport, FloodSettings, Hold } from "./flood-control.ts";

// Child process: the security review's script. From one source address it opens connections to the
// router and holds each doing as little as it can — nothing, a WebSocket upgrade and then silence,
// half an HTTP request — and opens a new one for every one the router drops.

const report = (message: FloodReport) => process.send?.(message);
process.on("disconnect", () => process.exit(0));

const counters: FloodCounters = {
  attempts: 0,
  refused: 0,
  upgraded: 0,
  timedOut: 0,
  open: 0,
  longestUpgradedMs: 0,
  longestHeldMs: { idle: 0, upgrade: 0, "half-request": 0 },
};
const sockets = new Set<Socket>();
let running = false;

function firstBytes(hold: Hold, settings: FloodSettings): string {
  const host = `Host: 127.0.0.1:${settings.port}\r\n`;
  if (hold === "idle") return "";
  if (hold === "half-request") return `GET /health HTTP/1.1\r\n${host}`;
  return (
    `GET /ws/node HTTP/1.1\r\n${host}Connection: Upgrade\r\nUpgrade: websocket\r\n` +
    "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
    `${NODE_ID_HEADER}: ${settings.nodeId}\r\n\r\n`
  );
}

function open(hold: Hold, settings: FloodSettings): void {
  counters.attempts++;
  let connectedAt = 0;
  let answered = false;
  let upgradedAt = 0;
  const socket = connect({ host: "127.0.0.1", port: settings.port, localAddress: settings.localAddress });
  sockets.add(socket);
  socket.on("connect", () => {
    connectedAt = performance.now();
    counters.open++;
    socket.write(firstBytes(hold, settings));
  });
  socket.on("data", (chunk: Buffer) => {
    if (answered) return;
    answered = true;
    const status = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1];
    if (status === "101") {
      counters.upgraded++;
      upgradedAt = performance.now();
    }
    if (status === "408") counters.timedOut++;
  });
  socket.on("error", () => {}); // reset by the router: that is the point
  socket.on("close", () => {
    sockets.delete(socket);
    if (connectedAt) counters.open--;
    if (upgradedAt)
      counters.longestUpgradedMs = Math.max(counters.longestUpgradedMs, performance.now() - upgradedAt);
    if (!answered) counters.refused++;
    else
      counters.longestHeldMs[hold] = Math.max(counters.longestHeldMs[hold], performance.now() - connectedAt);
    if (running) setTimeout(() => running && open(hold, settings), settings.reopenMs);
  });
}

process.on("message", (command: FloodCommand) => {
  if (command.type === "start") {
    running = true;
    const { settings } = command;
    for (let i = 0; i < settings.size; i++)
      open(settings.holds[i % settings.holds.length] ?? "idle", settings);
    report({ type: "started" });
  } else if (command.type === "counters") {
    report({ type: "counters", counters: { ...counters, longestHeldMs: { ...counters.longestHeldMs } } });
  } else {
    running = false;
    for (const socket of sockets) socket.destroy();
    report({ type: "stopped" });
  }
});
