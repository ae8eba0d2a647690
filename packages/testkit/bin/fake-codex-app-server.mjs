#!/usr/bin/env node
// A stand-in for `codex app-server` for the two things the real one cannot be made to do on
// purpose: ignore turn/interrupt (FAKE_CODEX_MODE=hang) and die in the middle of a turn
// (FAKE_CODEX_MODE=crash). It speaks just enough of the JSON-RPC protocol to get there.
import { createInterface } from "node:readline";

const mode = process.env.FAKE_CODEX_MODE ?? "hang";
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
let turns = 0;

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.method) {
    case "initialize":
      return send({ id: message.id, result: { userAgent: "fake-codex" } });
    case "thread/start":
    case "thread/resume":
      return send({ id: message.id, result: { thread: { id: message.params?.threadId ?? "thread-fake" } } });
    case "turn/start": {
      turns++;
      const turnId = `turn-${turns}`;
      send({ id: message.id, result: { turn: { id: turnId, status: "inProgress", items: [] } } });
      const threadId = message.params.threadId;
      send({
        method: "item/started",
        params: { threadId, turnId, item: { type: "commandExecution", id: "c1", command: "make build" } },
      });
      if (mode === "crash") setTimeout(() => process.exit(3), 100);
      return; // "hang": the turn never completes
    }
    case "turn/interrupt":
      return; // ignored on purpose: no answer, no turn/completed
    default:
      if (message.id !== undefined) send({ id: message.id, result: {} });
  }
});
