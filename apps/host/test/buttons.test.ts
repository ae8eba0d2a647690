import type { Button } from "@phonework/protocol";
import { type FakeRouter, startFakeRouter } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { CodingAgent } from "../src/coding/coding-agent.ts";
import type { HostDeps } from "../src/create-host.ts";
import { onCleanup, startHost } from "./support.ts";

// Buttons under the host's messages: each press is the user sending the button's command, so
// the frames must carry them as data (the text still names the commands, for platforms without).

const SECRET = "buttons-secret";

async function hostAndRouter(deps: Partial<HostDeps> = {}) {
  const router = await startFakeRouter({ secret: SECRET });
  onCleanup(() => router.close());
  const host = startHost(router.url, SECRET, {}, deps);
  await host.ready();
  const send = (id: string, text: string) =>
    router.latest().send({ type: "forward", id, user_id: "u1", chat_id: "c1", platform: "t", text });
  const ask = async (id: string, text: string) => {
    send(id, text);
    return router.latest().inbox.next("forward_response", (f) => f.id === id);
  };
  return { router, host, send, ask };
}

/** A Codex stand-in that asks the user before it does anything. */
function askingAgent(): HostDeps["agents"] {
  return (name, approvals): CodingAgent => ({
    name,
    async runTurn(request) {
      const { session } = request;
      const owner = { userId: session.user_id, chatId: session.chat_id, platform: session.platform };
      const approved = await approvals.request(
        owner,
        "Codex in demo asks to run: rm -rf build",
        request.signal,
      );
      return {
        ok: true,
        stopped: false,
        text: approved ? "ran it" : "did not run it",
        agentSessionId: "th-1",
      };
    },
    close: async () => {},
  });
}

const pushed = (router: FakeRouter, id: string) =>
  router.latest().inbox.next("forward_response", (f) => f.id === id);

describe("buttons on the frames the host sends", () => {
  it("/reminders answers with one Cancel button per job, each in its own row; pressing one cancels it", async () => {
    const { ask, router } = await hostAndRouter();
    await ask("r1", "/remind 10m stretch");
    await ask("r2", "/remind 2h tea");
    const list = await ask("r3", "/reminders");
    expect(String(list.text)).toMatch(
      /^Scheduled:\n#1 .*"stretch"\n#2 .*"tea"\n\n\/cancel <id> cancels one\.$/,
    );
    expect(list.buttons).toEqual([
      [{ label: "Cancel #1", command: "/cancel 1" }],
      [{ label: "Cancel #2", command: "/cancel 2" }],
    ]);
    const press = (list.buttons as Button[][])[1]?.[0]?.command ?? "";
    expect((await ask("r4", press)).text).toMatch(/^🗑️ Cancelled #2 /);
    const after = await ask("r5", "/reminders");
    expect(after.buttons).toEqual([[{ label: "Cancel #1", command: "/cancel 1" }]]);
    // A reply without buttons carries none.
    expect((await ask("r6", "/cancel 1")).buttons).toBeUndefined();
    expect((await ask("r7", "/reminders")).buttons).toBeUndefined();
    expect(
      router
        .latest()
        .inbox.ofType("forward_response")
        .every((f) => f.delivery_id),
    ).toBe(true);
  });

  it("an approval request is a notify with Approve and Deny buttons; pressing Approve answers it", async () => {
    const { router, send } = await hostAndRouter({ agents: askingAgent() });
    send("r1", "/new demo codex clean up");
    const ask = await router.latest().inbox.next("notify", (f) => String(f.text).startsWith("🔐"));
    const id = /\/approve ([0-9a-f]{4})/.exec(String(ask.text))?.[1] ?? "";
    expect(ask.text).toContain(`Reply /approve ${id} or /deny ${id}`);
    // Marked as news for the user's phone (the router pushes it to console users with no page open).
    expect(ask).toMatchObject({ user_id: "u1", chat_id: "c1", platform: "t", alert: "approval" });
    expect(ask.buttons).toEqual([
      [
        { label: "Approve", command: `/approve ${id}` },
        { label: "Deny", command: `/deny ${id}` },
      ],
    ]);
    const approve = (ask.buttons as Button[][])[0]?.[0]?.command ?? "";
    send("r2", approve);
    expect((await pushed(router, "r2")).text).toBe(`✅ Approved ${id}.`);
    expect((await pushed(router, "r1")).text).toBe("ran it");
  });
});
