import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { Button } from "@phonework/protocol";
import { makeTempDir, startFakeRouter } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { AgentThread, CodingAgent, TurnRequest } from "../src/coding/coding-agent.ts";
import { onCleanup, startHost } from "./support.ts";

// /threads and /use thread <id> over a Codex stand-in whose thread catalog the test sets; the
// real app-server's side is in codex-threads.e2e.test.ts.

const SECRET = "threads-secret";
const HOUR = 3_600_000;

function codexWith(threads: AgentThread[]) {
  const turns: TurnRequest[] = [];
  const agent: CodingAgent = {
    name: "codex",
    threads: {
      list: async (limit) => [...threads].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, limit),
      read: async (id) => threads.find((t) => t.id === id),
    },
    async runTurn(request) {
      turns.push(request);
      return { ok: true, stopped: false, text: "resumed", agentSessionId: request.session.agent_session_id };
    },
    close: async () => {},
  };
  return { agent, turns };
}

async function start(threads: (workingDir: string) => AgentThread[]) {
  const router = await startFakeRouter({ secret: SECRET });
  onCleanup(() => router.close());
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const workingDir = realpathSync(dir.path);
  mkdirSync(join(workingDir, "demo"));
  const codex = codexWith(threads(workingDir));
  const host = startHost(router.url, SECRET, { WORKING_DIR: workingDir }, { agents: () => codex.agent });
  await host.ready();
  let n = 0;
  const ask = async (text: string, user = "u1") => {
    const id = `r${++n}`;
    router.latest().send({ type: "forward", id, user_id: user, chat_id: "c1", platform: "t", text });
    return router.latest().inbox.next("forward_response", (f) => f.id === id);
  };
  return { host, ask, workingDir, turns: codex.turns };
}

const thread = (id: string, title: string, hoursAgo: number, cwd?: string): AgentThread => ({
  id,
  title,
  updatedAt: Date.now() - hoursAgo * HOUR,
  ...(cwd ? { cwd } : {}),
});

describe("/threads", () => {
  it("lists at most 20 threads, newest first, with id, title, age and place, and a button each", async () => {
    const { ask } = await start((wd) => [
      thread("old", "first thing", 5, "/somewhere/else"),
      thread("new", "fix the\nlogin bug", 1, join(wd, "demo")),
      ...Array.from({ length: 25 }, (_, i) => thread(`t${i}`, `thread ${i}`, 10 + i)),
    ]);
    const reply = await ask("/threads");
    const lines = String(reply.text).split("\n");
    expect(lines[0]).toBe("Codex threads, newest first:");
    expect(lines[1]).toBe("• new — fix the login bug (1h ago · demo)");
    expect(lines[2]).toBe("• old — first thing (5h ago · /somewhere/else)");
    expect(lines[3]).toBe("• t0 — thread 0 (10h ago)");
    expect(lines.filter((l) => l.startsWith("• "))).toHaveLength(20);
    expect(lines.at(-1)).toBe("/use thread <id> continues one here.");
    const buttons = reply.buttons as Button[][];
    expect(buttons).toHaveLength(20);
    expect(buttons[0]).toEqual([{ label: "Use: fix the login bug", command: "/use thread new" }]);
  });

  it("says so when there are none, or when this node has no Codex", async () => {
    const { ask } = await start(() => []);
    expect((await ask("/threads")).text).toBe(
      "No Codex threads on this node yet. Start one with /new <project> codex.",
    );
    const router = await startFakeRouter({ secret: SECRET });
    onCleanup(() => router.close());
    const bare = startHost(router.url, SECRET, {}, { env: { PATH: "/nonexistent" } });
    await bare.ready();
    router
      .latest()
      .send({ type: "forward", id: "x", user_id: "u1", chat_id: "c1", platform: "t", text: "/threads" });
    const reply = await router.latest().inbox.next("forward_response", (f) => f.id === "x");
    expect(reply.text).toContain("`codex` not found on this host");
  });
});

describe("/use thread <id>", () => {
  it("makes a Codex session on that thread active, in the thread's project, and the next message resumes it", async () => {
    const { ask, host, turns, workingDir } = await start((wd) => [
      thread("th-demo", "fix the login bug", 1, join(wd, "demo")),
    ]);
    expect((await ask("/use thread th-demo")).text).toBe(
      "🧵 Session #1 (codex · demo) continues Codex thread th-demo — fix the login bug. Your messages now go to it (/use off to talk to the assistant).",
    );
    expect(host.sessions.active("u1")).toMatchObject({
      id: "1",
      agent: "codex",
      project: "demo",
      cwd: join(workingDir, "demo"),
      agent_session_id: "th-demo",
    });
    expect((await ask("and now?")).text).toBe("resumed");
    expect(turns.at(-1)).toMatchObject({ prompt: "and now?", session: { agent_session_id: "th-demo" } });
    expect(String((await ask("/threads")).text).split("\n")[1]).toMatch(/^→ th-demo /);

    // Again, after leaving it: the same session comes back, no second one.
    await ask("/use off");
    expect((await ask("/use thread th-demo")).text).toMatch(/^→ Session #1 \(codex · demo\) continues/);
    expect(host.sessions.list("u1")).toHaveLength(1);
    expect(host.sessions.active("u1")?.id).toBe("1");
  });

  it("a thread that ran outside WORKING_DIR (or nowhere known) continues in WORKING_DIR itself", async () => {
    const { ask, host, workingDir } = await start(() => [
      thread("th-out", "elsewhere", 1, "/etc"),
      thread("th-none", "no cwd", 2),
    ]);
    expect((await ask("/use thread th-out")).text).toMatch(/^🧵 Session #1 \(codex · \.\) continues/);
    expect(host.sessions.active("u1")).toMatchObject({ project: ".", cwd: workingDir });
    expect((await ask("/use thread th-none")).text).toMatch(/^🧵 Session #2 \(codex · \.\)/);
  });

  it("an unknown or malformed id, or another user's thread, is an error and changes nothing", async () => {
    const { ask, host } = await start((wd) => [thread("th-1", "one", 1, join(wd, "demo"))]);
    await ask("/new demo codex");
    const before = host.sessions.list("u1");
    expect((await ask("/use thread nope")).text).toBe(
      "❌ No Codex thread nope on this node. /threads lists them.",
    );
    expect((await ask("/use thread")).text).toBe("Usage: /use thread <id> (/threads lists them)");
    expect((await ask("/use thread ../x y")).text).toBe("Usage: /use thread <id> (/threads lists them)");
    expect(host.sessions.list("u1")).toEqual(before);
    expect(host.sessions.active("u1")?.id).toBe("1");

    expect((await ask("/use thread th-1", "u2")).text).toMatch(/^🧵 Session #2 /);
    expect((await ask("/use thread th-1")).text).toBe(
      "❌ Codex thread th-1 is already continued by another user's session.",
    );
    expect(host.sessions.active("u1")?.id).toBe("1");
  });

  it("/use <id> and /use off still work", async () => {
    const { ask, host } = await start(() => []);
    await ask("/new demo codex");
    await ask("/new demo codex");
    expect((await ask("/use 1")).text).toBe("→ Session #1 (codex · demo) is active.");
    expect((await ask("/use 9")).text).toBe("No session #9. /sessions lists yours.");
    expect((await ask("/use off")).text).toBe("Your messages go to the assistant again.");
    expect(host.sessions.active("u1")).toBeUndefined();
  });
});
