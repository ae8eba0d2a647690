import { join } from "node:path";
import type { Button } from "@phonework/protocol";
import { describe, expect, it } from "vitest";
import { startCodexWorld } from "./codex-support.ts";

// /threads and /use thread <id> against the real `codex app-server` (thread/list, thread/read,
// thread/resume), offline with a fake Responses API. One test: the CLI is slow to start.

const SECRET = "codex-threads-secret";

describe("Codex threads (real codex app-server, fake model)", () => {
  it("a thread begun in one session is listed, attached after its session is gone, and resumed", async () => {
    const { model, router, host, root } = await startCodexWorld(SECRET, { STOP_GRACE_S: 2 });
    let n = 0;
    const ask = async (text: string) => {
      const id = `r${++n}`;
      router.latest().send({ type: "forward", id, user_id: "u1", chat_id: "c1", platform: "t", text });
      return router.latest().inbox.next("forward_response", (f) => f.id === id, 60_000);
    };

    model.script({ text: "Noted." }, { text: "Green." });
    expect((await ask("/new demo codex my favourite colour is green")).text).toBe("Noted.");
    const threadId = host.sessions.list("u1")[0]?.agent_session_id ?? "";
    expect(threadId).not.toBe("");

    const listed = await ask("/threads");
    expect(String(listed.text).split("\n")[1]).toMatch(
      new RegExp(`^→ ${threadId} — my favourite colour is green \\(\\d+s ago · demo\\)$`),
    );
    expect((listed.buttons as Button[][])[0]).toEqual([
      { label: "Use: my favourite colour is green", command: `/use thread ${threadId}` },
    ]);

    // The session is gone; the thread is still Codex's, and an unknown id changes nothing.
    await ask("/close 1");
    expect((await ask("/use thread 019a0000-0000-7000-8000-000000000000")).text).toBe(
      "❌ No Codex thread 019a0000-0000-7000-8000-000000000000 on this node. /threads lists them.",
    );
    expect(host.sessions.list("u1")).toEqual([]);

    expect((await ask(`/use thread ${threadId}`)).text).toMatch(
      new RegExp(
        `^🧵 Session #2 \\(codex · demo\\) continues Codex thread ${threadId} — my favourite colour`,
      ),
    );
    expect((await ask("what is my favourite colour?")).text).toBe("Green.");
    const last = model.requests.at(-1);
    expect(model.userTexts(last).join("\n")).toContain("my favourite colour is green");
    expect(model.userTexts(last).at(-1)).toContain("what is my favourite colour?");
    expect(host.sessions.active("u1")).toMatchObject({
      id: "2",
      agent_session_id: threadId,
      cwd: join(root, "work", "demo"),
    });
  });
});
