import { startFakeRouter } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { CodingAgent } from "../src/coding/coding-agent.ts";
import { onCleanup, startHost } from "./support.ts";

// A host refuses a coding turn past MAX_PENDING with QUEUE_FULL, and its message says the limit.

const SECRET = "queue-secret";

/** A coding agent whose turns run until they are stopped. */
const endless = (): CodingAgent => ({
  name: "codex",
  runTurn: (request) =>
    new Promise((resolve) =>
      request.signal.addEventListener("abort", () =>
        resolve({ ok: false, stopped: true, text: "⏹️ Stopped.", agentSessionId: undefined }),
      ),
    ),
  close: async () => {},
});

describe("QUEUE_FULL", () => {
  it.each([
    [{}, 10],
    [{ MAX_PENDING: 2 }, 2],
  ])(
    "past MAX_PENDING (%j) the next turn gets QUEUE_FULL with 'queue full (max %i)'",
    async (config, max) => {
      const router = await startFakeRouter({ secret: SECRET });
      onCleanup(() => router.close());
      const host = startHost(
        router.url,
        SECRET,
        { LONG_TURN_S: 600, ...config },
        { agents: () => endless() },
      );
      await host.ready();
      const send = (id: string, text: string) =>
        router.latest().send({ type: "forward", id, user_id: "u1", chat_id: "c1", platform: "t", text });
      send("new", "/new demo codex");
      await router.latest().inbox.next("forward_response", (f) => f.id === "new");
      for (let i = 1; i <= max + 1; i++) send(`t${i}`, `turn ${i}`);
      const refused = await router.latest().inbox.next("forward_response", (f) => f.id === `t${max + 1}`);
      expect(refused.error).toEqual({ code: "QUEUE_FULL", message: `queue full (max ${max})` });
      expect(refused.text).toBe(`queue full (max ${max})`);
      expect(host.sessions.pendingTurns).toBe(max);
    },
  );
});
