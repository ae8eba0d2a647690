import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { HostConfigSchema } from "../apps/host/src/config/host-config.ts";
import { createHost } from "../apps/host/src/create-host.ts";
import { openRouterDatabase } from "../apps/router/src/database/router-db.ts";
import { TurnCommit } from "../apps/router/src/storage/turn-commit.ts";
import { encodeFrame } from "../packages/protocol/src/index.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import type { Cleanup } from "./cleanup.ts";
import type { RoundTrip } from "./closed-loop.ts";
import { startInProcessRouter } from "./in-process-router.ts";
import { BENCH_SECRET } from "./router-control.ts";
import { tempDir } from "./temp-dir.ts";

// The measured path: memory chat adapter → real router → real host (echo handler) over a real
// WebSocket on loopback → back to the adapter. Router and host share this process, as the raw
// echo's server and client do, so both sides of the comparison get the same single thread.

export const MESSAGE_TEXT =
  "please run the tests in the todo app and tell me which ones fail, with the file names".padEnd(100, ".");

/** Bytes of the `forward` frame the router sends for MESSAGE_TEXT; the raw echo sends as many. */
export function forwardFrameBytes(): number {
  return Buffer.byteLength(
    encodeFrame({
      type: "forward",
      id: randomUUID(),
      user_id: "user-42",
      chat_id: "chat-user-42",
      platform: "memory",
      text: MESSAGE_TEXT,
      message_id: "in12345",
    }),
  );
}

export interface ForwardingRig {
  roundTrip: RoundTrip;
  /** Commits of router.db since the start (the per-turn batcher's: every write on the path is one of its). */
  routerCommits(): number;
}

export async function startForwardingRig(cleanup: Cleanup): Promise<ForwardingRig> {
  const routerDir = tempDir(cleanup, "router-db");
  // Opened here so the bench can read its batcher's commit count; the router closes it.
  const db = openRouterDatabase(join(routerDir, "router.db"));
  const { router, chat, nextReply } = await startInProcessRouter(cleanup, {}, { db });
  const hostDir = tempDir(cleanup, "host");
  const host = createHost(
    HostConfigSchema.parse({
      ROUTER_URL: router.nodeUrl,
      ROUTER_SECRET: BENCH_SECRET,
      NODE_ID: "bench-host",
      WORKING_DIR: hostDir,
      DATA_DIR: hostDir,
    }),
    { logger: createLogger({ level: "silent" }), handler: { handle: async (request) => request.text } },
  );
  host.start();
  cleanup.add(() => host.stop());
  await host.ready();

  let answered = 0;
  const roundTrip: RoundTrip = async (user) => {
    const userId = `user-${user}`;
    const reply = nextReply(userId);
    chat.receive({ userId, text: MESSAGE_TEXT });
    const text = await reply;
    if (text !== MESSAGE_TEXT) throw new Error(`unexpected reply to ${userId}: ${text.slice(0, 200)}`);
    // The adapter keeps every message it sent; forget them so a long run does not grow the heap.
    if (++answered % 1000 === 0) chat.sent.splice(0);
  };
  return { roundTrip, routerCommits: () => TurnCommit.of(db).stats.commits };
}
