import type { AddressInfo } from "node:net";
import { HostConfigSchema } from "../apps/host/src/config.ts";
import { createHost } from "../apps/host/src/create-host.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import type { Cleanup } from "./cleanup.ts";
import { atMost, type Figure, info } from "./figure.ts";
import { percentile, round, sortedCopy } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";
import { type WebSocket, WebSocketServer } from "./ws.ts";

// Whether a terminal's output holds up chat on the same link (issue 19: it must not), on a real host
// (node-pty, its flow control) over a real socket. The router side is a small one written here: it
// answers the handshake, sends chat messages (`/tasks`, answered without a model) and times their
// answers, and reads the terminal as a fast page would (acknowledging each frame at once) or a slow
// one (16 KiB every 50 ms). Chat is timed with no terminal, then beside each flood.

const SECRET = "bench-terminal-flood";
const USER = "telegram:1";
const CHATS = 60;
const CHAT_GAP_MS = 15;
const FLOOD_WARM_UP_MS = 500;
const SLOW_ACK_BYTES = 16 * 1024;
const SLOW_ACK_EVERY_MS = 50;

type Reader = "none" | "fast" | "slow";

interface RouterEnd {
  socket: WebSocket;
  /** Resolves with the answer's arrival time. */
  ask(text: string): Promise<number>;
  /** Output bytes received, and the most ever received but not acknowledged. */
  output: { bytes: number; peakUnacked: number };
  openTerminal(reader: Exclude<Reader, "none">): Promise<void>;
  closeTerminal(): Promise<void>;
}

async function listen(cleanup: Cleanup): Promise<{ url: string; connected: Promise<RouterEnd> }> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, path: "/ws/node" });
  cleanup.add(() => new Promise<void>((resolve) => server.close(() => resolve())));
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const connected = new Promise<RouterEnd>((resolve) => {
    server.once("connection", (socket) => {
      const send = (frame: object) => socket.send(JSON.stringify(frame));
      const answers = new Map<string, (at: number) => void>();
      const output = { bytes: 0, peakUnacked: 0 };
      let unacked = 0;
      let reader: Reader = "none";
      let opened: (() => void) | undefined;
      let exited: (() => void) | undefined;
      let asked = 0;
      const ack = (bytes: number) => {
        unacked -= bytes;
        send({ type: "terminal_ack", id: "flood", user_id: USER, bytes });
      };
      const slow = setInterval(() => {
        if (reader === "slow" && unacked > 0) ack(Math.min(unacked, SLOW_ACK_BYTES));
      }, SLOW_ACK_EVERY_MS);
      cleanup.add(() => clearInterval(slow));
      send({ type: "challenge", nonce: "n".repeat(32), protocol_versions: [3] });
      socket.on("message", (data) => {
        const frame = JSON.parse(data.toString()) as Record<string, unknown>;
        switch (frame.type) {
          case "register":
            send({
              type: "register_ok",
              protocol_version: 3,
              node_id: frame.node_id,
              heartbeat_interval_s: 30,
              heartbeat_timeout_s: 30,
              max_payload_bytes: 16 * 1024 * 1024,
            });
            resolve(end);
            return;
          case "forward_response":
            send({ type: "push_ack", delivery_id: frame.delivery_id, ok: true });
            answers.get(String(frame.id))?.(performance.now());
            return;
          case "terminal_opened":
            opened?.();
            return;
          case "terminal_exit":
            exited?.();
            return;
          case "terminal_output": {
            const bytes = Buffer.byteLength(String(frame.data));
            output.bytes += bytes;
            unacked += bytes;
            output.peakUnacked = Math.max(output.peakUnacked, unacked);
            if (reader === "fast") ack(bytes);
            return;
          }
        }
      });
      const end: RouterEnd = {
        socket,
        output,
        ask(text) {
          const id = `chat-${++asked}`;
          const answered = new Promise<number>((done) => answers.set(id, done));
          send({ type: "forward", id, user_id: USER, chat_id: USER, platform: "telegram", text });
          return answered;
        },
        async openTerminal(next) {
          reader = next;
          unacked = 0;
          output.bytes = 0;
          output.peakUnacked = 0;
          const ready = new Promise<void>((done) => {
            opened = done;
          });
          send({
            type: "terminal_open",
            id: "flood",
            user_id: USER,
            chat_id: USER,
            platform: "console",
            cols: 120,
            rows: 40,
          });
          await ready;
          // Endless output, as fast as the terminal takes it.
          send({
            type: "terminal_input",
            id: "flood",
            user_id: USER,
            data: "yes 0123456789abcdefghijklmnopqrstuvwxyz\r",
          });
        },
        async closeTerminal() {
          const gone = new Promise<void>((done) => {
            exited = done;
          });
          send({ type: "terminal_close", id: "flood", user_id: USER });
          await gone;
          reader = "none";
        },
      };
    });
  });
  const { port } = server.address() as AddressInfo;
  return { url: `ws://127.0.0.1:${port}/ws/node`, connected };
}

/** Round trips of CHATS chat messages, one after another, in ms. */
async function chatRoundTrips(router: RouterEnd): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < CHATS; i++) {
    const sent = performance.now();
    times.push((await router.ask("/tasks")) - sent);
    await new Promise((resolve) => setTimeout(resolve, CHAT_GAP_MS));
  }
  return times;
}

export async function measureTerminalFlood(cleanup: Cleanup): Promise<Figure[]> {
  const { url, connected } = await listen(cleanup);
  const dir = tempDir(cleanup, "terminal-flood");
  const config = HostConfigSchema.parse({
    ROUTER_URL: url,
    ROUTER_SECRET: SECRET,
    NODE_ID: "bench",
    WORKING_DIR: dir,
    DATA_DIR: dir,
    // The flood is `yes` in the PTY: the sandbox's cost is per command, measured in its own part.
    SANDBOX: "off",
  });
  const host = createHost(config, { logger: createLogger({ level: "silent" }) });
  host.start();
  cleanup.add(() => host.stop());
  const router = await connected;
  await host.ready();
  await new Promise((resolve) => setTimeout(resolve, 300)); // node-pty loads beside the first connection

  const p = (values: number[], at: number) => round(percentile(sortedCopy(values), at), 2);
  const baseline = await chatRoundTrips(router);
  const figures: Figure[] = [
    info("chat round trip, no terminal: p50", p(baseline, 50), "ms", `${CHATS} × /tasks, one at a time`),
    info("chat round trip, no terminal: p99", p(baseline, 99), "ms"),
  ];
  const limit = round(3 * p(baseline, 50) + 20, 1);
  const window = config.TERMINAL_BUFFER_BYTES;
  for (const reader of ["fast", "slow"] as const) {
    await router.openTerminal(reader);
    await new Promise((resolve) => setTimeout(resolve, FLOOD_WARM_UP_MS));
    const started = performance.now();
    const before = router.output.bytes;
    const times = await chatRoundTrips(router);
    const seconds = (performance.now() - started) / 1000;
    const received = router.output.bytes - before;
    const peak = router.output.peakUnacked;
    await router.closeTerminal();
    const how =
      reader === "fast"
        ? "the page acknowledges each frame as it comes"
        : `the page acknowledges ${SLOW_ACK_BYTES / 1024} KiB every ${SLOW_ACK_EVERY_MS} ms`;
    figures.push(
      atMost(
        `chat round trip beside a ${reader} reader's flood: p50`,
        p(times, 50),
        "ms",
        limit,
        `${how}; target: 3 × the no-terminal p50 + 20 ms`,
      ),
      info(`chat round trip beside a ${reader} reader's flood: p99`, p(times, 99), "ms"),
      info(`terminal output to a ${reader} reader`, round(received / seconds / 1e6, 2), "MB/s"),
      atMost(
        `terminal output unacknowledged at most, ${reader} reader`,
        peak,
        "bytes",
        window,
        "the host sends only within its window (TERMINAL_BUFFER_BYTES); past its own buffer it pauses the PTY",
      ),
    );
  }
  return figures;
}
