import { OVERVIEW_LIMITS, Overview, type OverviewChangedFrame } from "@phonework/protocol";
import { openDatabase } from "@phonework/runtime";
import { type FakeRouter, makeTempDir, startFakeRouter, waitFor } from "@phonework/testkit";
import { describe, expect, it, vi } from "vitest";
import type { CodingAgent } from "../src/coding/coding-agent.ts";
import type { HostDeps } from "../src/create-host.ts";
import { buildOverview, type OverviewSources } from "../src/overview/build-overview.ts";
import { OverviewChanges } from "../src/overview/overview-changes.ts";
import { INTERRUPTED, SESSION_TURNS_MIGRATION, SessionActivity } from "../src/overview/session-activity.ts";
import { onCleanup, startHost } from "./support.ts";

// The host's side of the console's overview, through a real host and a fake router over a real
// socket: what a user's overview holds (their sessions with live progress and recent turns, tasks,
// reminders, approvals from any of their chats), that it never holds another user's, the notices
// that it changed, and the bounds. Also the task commands a shared host must scope to the user.

const SECRET = "overview-secret";
const ALICE = "telegram:1001";
const BOB = "telegram:2002";

/** A Codex stand-in: reports progress, waits for `go`, then asks its user before it finishes. */
function steppingAgent() {
  let go: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    go = resolve;
  });
  const agents: HostDeps["agents"] = (name, approvals): CodingAgent => ({
    name,
    async runTurn(request) {
      const { session } = request;
      for (let i = 1; i <= 40; i++) request.onProgress(`🔧 step ${i} of ${request.prompt}`);
      const stopped = new Promise<void>((resolve) =>
        request.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      await Promise.race([gate, stopped]);
      if (request.signal.aborted)
        return { ok: false, stopped: true, text: "⏹️ Stopped.", agentSessionId: "th-1" };
      gate = new Promise<void>((resolve) => {
        go = resolve;
      });
      const owner = { userId: session.user_id, chatId: session.chat_id, platform: session.platform };
      const approved = await approvals.request(
        owner,
        `Codex asks to run: rm -rf build (${request.prompt})`,
        request.signal,
      );
      return {
        ok: true,
        stopped: false,
        text: approved ? `ran it for ${session.user_id}` : "did not",
        agentSessionId: "th-1",
      };
    },
    close: async () => {},
  });
  return { agents, go: () => go() };
}

async function world(overrides: Record<string, unknown> = {}, deps: Partial<HostDeps> = {}) {
  const router: FakeRouter = await startFakeRouter({ secret: SECRET });
  onCleanup(() => router.close());
  const host = startHost(router.url, SECRET, { LONG_TURN_S: 0.3, ...overrides }, deps);
  await host.ready();
  let next = 0;
  /** A chat message from `user` in `chat`; resolves with the answer. */
  const say = async (user: string, text: string, chat = `${user}-phone`) => {
    const id = `m${++next}`;
    router.latest().send({ type: "forward", id, user_id: user, chat_id: chat, platform: "telegram", text });
    return String((await router.latest().inbox.next("forward_response", (f) => f.id === id, 15_000)).text);
  };
  const overviewOf = async (user: string): Promise<Overview> => {
    const id = `o${++next}`;
    router.latest().send({ type: "overview_request", id, user_id: user });
    const frame = await router.latest().inbox.next(["overview", "error"], (f) => f.id === id);
    if (frame.type !== "overview") throw new Error(`refused: ${JSON.stringify(frame)}`);
    expect(frame.user_id).toBe(user);
    return Overview.parse(frame.overview);
  };
  return { router, host, say, overviewOf };
}

describe("overview of a user's work on a host", () => {
  it("holds the user's session with its live progress and turns, their reminders, tasks and approvals — none of another user's", async () => {
    const agent = steppingAgent();
    const { router, say, overviewOf } = await world({}, { agents: agent.agents });
    expect(router.registrations.at(-1)?.capabilities).toContain("overview");

    await say(ALICE, "/remind 2h tea");
    await say(BOB, "/remind 1h bob-secret-reminder");
    // Past LONG_TURN_S a /shell runs on in the background: a task of bob's.
    expect(await say(BOB, "/shell echo bob-secret-output; sleep 30")).toMatch(/taking a while/);
    // The turn outlasts LONG_TURN_S too: the answer says it runs on, and the overview shows how.
    expect(await say(ALICE, "/new demo codex fix the build")).toMatch(/taking a while/);

    await waitFor(async () => (await overviewOf(ALICE)).sessions[0]?.progress.length === 10, {
      message: "alice's session's progress",
    });
    const alice = await overviewOf(ALICE);
    expect(alice.sessions).toEqual([
      expect.objectContaining({
        agent: "codex",
        project: "demo",
        busy: true,
        active: true,
        progress: Array.from({ length: 10 }, (_, i) => `🔧 step ${31 + i} of fix the build`),
        turns: [{ prompt: "fix the build", started_at: expect.any(Number) }],
        actions: [{ label: "Stop", command: "/stop" }],
      }),
    ]);
    expect(alice.schedule.map((job) => [job.text, job.kind, job.actions[0]?.command])).toEqual([
      ["tea", "message", expect.stringMatching(/^\/cancel \d+$/)],
    ]);
    // Nothing of bob's, anywhere in alice's overview (his id as a number of its own: a timestamp
    // such as 1795800200208 holds "2002" by chance).
    expect(JSON.stringify(alice)).not.toMatch(/bob|(?<!\d)2002(?!\d)/);

    const bob = await overviewOf(BOB);
    expect(bob.sessions).toEqual([]);
    expect(bob.tasks).toEqual([
      expect.objectContaining({
        kind: "shell",
        status: "running",
        output_tail: expect.stringContaining("bob-secret-output"),
        actions: [{ label: "Cancel", command: expect.stringMatching(/^\/kill [0-9a-f]{6}$/) }],
      }),
    ]);
    expect(JSON.stringify(bob)).not.toMatch(/tea|fix the build|(?<!\d)1001(?!\d)/);

    // The approval alice's session asks in her phone chat is in her overview, and answered from
    // another of her chats (the console's) with the command the overview names.
    agent.go();
    await waitFor(async () => (await overviewOf(ALICE)).approvals.length === 1, { message: "the approval" });
    const [approval] = (await overviewOf(ALICE)).approvals;
    expect(approval).toMatchObject({
      what: "Codex asks to run: rm -rf build (fix the build)",
      chat: `${ALICE}-phone`,
      actions: [
        { label: "Approve", command: `/approve ${approval?.id}` },
        { label: "Deny", command: `/deny ${approval?.id}` },
      ],
    });
    expect(approval && approval.expires_at - approval.asked_at).toBe(300_000); // APPROVAL_TIMEOUT_S
    expect((await overviewOf(BOB)).approvals).toEqual([]);
    // Bob cannot answer it, even knowing the id.
    expect(await say(BOB, `/approve ${approval?.id}`)).toBe(`No pending approval ${approval?.id}.`);
    expect(await say(ALICE, approval?.actions[0]?.command ?? "", `console:${ALICE}`)).toBe(
      `✅ Approved ${approval?.id}.`,
    );
    await waitFor(async () => !(await overviewOf(ALICE)).sessions[0]?.busy, { message: "the turn's end" });
    const after = await overviewOf(ALICE);
    expect(after.approvals).toEqual([]);
    expect(after.sessions[0]).toMatchObject({
      busy: false,
      progress: [],
      turns: [{ prompt: "fix the build", answer: `ran it for ${ALICE}`, ok: true }],
      actions: [],
    });
  });

  it("a session's recent turns are in the overview after a host restart, as many as before, none to another user", async () => {
    const agents: HostDeps["agents"] = (name): CodingAgent => ({
      name,
      runTurn: async (request) => ({
        ok: true,
        stopped: false,
        text: `did ${request.prompt}`,
        agentSessionId: "th",
      }),
      close: async () => {},
    });
    const dir = makeTempDir();
    onCleanup(dir.remove);
    const state = { DATA_DIR: dir.path, WORKING_DIR: dir.path };
    const first = await world(state, { agents });
    expect(await first.say(ALICE, "/new demo codex turn 1")).toBe("did turn 1");
    for (let i = 2; i <= OVERVIEW_LIMITS.turns + 1; i++)
      expect(await first.say(ALICE, `turn ${i}`)).toBe(`did turn ${i}`);
    const before = (await first.overviewOf(ALICE)).sessions[0]?.turns;
    expect(before?.map((turn) => turn.answer)).toEqual(
      Array.from({ length: OVERVIEW_LIMITS.turns }, (_, i) => `did turn ${i + 2}`),
    );
    await first.host.stop();

    const second = await world(state, { agents });
    expect((await second.overviewOf(ALICE)).sessions[0]?.turns).toEqual(before);
    expect((await second.overviewOf(BOB)).sessions).toEqual([]);
  });

  it("a shared host scopes tasks to their user: /tasks, /kill and task_status never reach another user's", async () => {
    const { host, say, overviewOf } = await world();
    await say(BOB, "/shell echo bob-secret-output; sleep 30");
    const [task] = (await overviewOf(BOB)).tasks;
    const id = task?.id ?? "";
    expect(await say(ALICE, "/tasks")).not.toContain(id);
    expect(await say(ALICE, "/tasks")).not.toContain("bob-secret");
    expect(await say(ALICE, `/kill ${id}`)).toBe(`No running task #${id} of yours. /tasks lists them.`);
    expect(await say(ALICE, `/kill #${id}`)).toBe(`No running task #${id} of yours. /tasks lists them.`);
    expect(host.tasks.get(BOB, id)?.status).toBe("running");
    // The tool the model calls asks with the caller's user, as /tasks does.
    expect(host.tasks.get(ALICE, id)).toBeUndefined();
    expect(await say(BOB, "/tasks")).toContain(id);
    expect(await say(BOB, `/kill ${id}`)).toBe(`⏹️ Stopping task #${id}.`);
    await waitFor(() => host.tasks.get(BOB, id)?.status === "cancelled", { message: "bob's task cancelled" });
    expect(await say(BOB, `/kill ${id}`)).toMatch(/^No running task/);
  });

  it("says which users' work changed, gathered into few notices, and nothing while the link is down", async () => {
    const agent = steppingAgent();
    const { router, say } = await world({}, { agents: agent.agents });
    const notices = () =>
      router
        .latest()
        .inbox.frames.filter((f) => f.type === "overview_changed")
        .map((f) => (f as unknown as OverviewChangedFrame).user_ids);
    const changed = () => notices().flat();
    await say(ALICE, "/new demo codex go"); // 40 progress lines in a burst, and a reply
    await waitFor(() => changed().includes(ALICE), { message: "a notice for alice" });
    expect(changed()).not.toContain(BOB);
    // Bob's change comes after alice's burst is over (the turn waits for `go`): once its notice
    // is here, every notice of the burst is too, the link keeping their order.
    await say(BOB, "/remind 1h stretch");
    await waitFor(() => changed().includes(BOB), { message: "a notice for bob" });
    const firstForBob = notices().findIndex((ids) => ids.includes(BOB));
    const burst = notices()
      .slice(0, firstForBob + 1)
      .filter((ids) => ids.includes(ALICE));
    expect(burst.length).toBeGreaterThan(0);
    expect(burst.length).toBeLessThanOrEqual(3); // not one per progress line
    expect(notices().slice(0, firstForBob).flat()).not.toContain(BOB);
  });

  it("refuses the overview of a user this host does not serve", async () => {
    const { router, overviewOf } = await world({ SERVES_USERS: "1001" });
    expect((await overviewOf(ALICE)).sessions).toEqual([]);
    router.latest().send({ type: "overview_request", id: "x1", user_id: BOB });
    expect(await router.latest().inbox.next("error", (f) => f.id === "x1")).toMatchObject({
      code: "UNAUTHORIZED",
    });
  });
});

describe("overview parts", () => {
  it("keeps sessions' turns in state.db: a turn cut short by a restart ends as interrupted; a closed session's go", () => {
    const db = openDatabase(":memory:", { migrations: [SESSION_TURNS_MIGRATION] });
    const before = new SessionActivity(() => 1, db);
    before.started("s1", "done one");
    before.ended("s1", "answer", true);
    before.started("s1", "running one");
    before.progress("s1", "🔧 a step");
    before.started("s2", "closed one");
    before.forget("s2");
    const after = new SessionActivity(() => 2, db);
    expect(after.get("s1")).toEqual({
      progress: [],
      turns: [
        { prompt: "done one", answer: "answer", ok: true, started_at: 1, ended_at: 1 },
        { prompt: "running one", answer: INTERRUPTED, ok: false, started_at: 1, ended_at: 2 },
      ],
    });
    expect(after.get("s2").turns).toEqual([]);
  });

  it("cuts everything to the protocol's bounds, so the biggest overview still parses and stays small", () => {
    const huge = "x".repeat(10_000);
    const activity = new SessionActivity(() => 5);
    const sessions = Array.from({ length: 50 }, (_, i) => ({
      id: String(i),
      user_id: "u",
      agent: "codex" as const,
      project: huge,
      cwd: "/",
      platform: "t",
      chat_id: "c",
      model: huge,
      created_at: 1,
      last_activity: i,
    }));
    for (const session of sessions) {
      for (let turn = 0; turn < 8; turn++) {
        activity.started(session.id, huge);
        activity.ended(session.id, huge, true);
      }
      activity.started(session.id, huge);
      for (let line = 0; line < 30; line++) activity.progress(session.id, huge);
    }
    const task = (i: number) => ({
      id: `t${i}`,
      kind: "shell" as const,
      description: huge,
      command: huge,
      cwd: "/",
      user_id: "u",
      chat_id: "c",
      platform: "t",
      status: "done" as const,
      started_at: 1,
      finished_at: 2,
      exit_code: 0,
      output: huge,
    });
    const sources: OverviewSources = {
      sessions: { list: () => sessions, active: () => sessions[3], isBusy: (id) => Number(id) % 2 === 0 },
      activity,
      tasks: { list: () => Array.from({ length: 200 }, (_, i) => task(i)), get: () => undefined },
      plans: {
        plansOf: (_user, limit) =>
          Array.from({ length: limit }, (_, i) => ({
            id: `p${i}`,
            user_id: "u",
            platform: "t",
            chat_id: "c",
            goal: huge,
            status: "running" as const,
            created_at: 1,
            finished_at: null,
            report: null,
            request_id: null,
          })),
        subtasks: (planId) =>
          Array.from({ length: 100 }, (_, i) => ({
            plan_id: planId,
            id: `s${i}`,
            seq: i,
            objective: huge,
            context: huge,
            skills: [],
            ttl_s: 60,
            node: "n".repeat(200),
            depends_on: [],
            max_retries: 0,
            state: "FAILED" as const,
            attempts: 3,
            worker: null,
            last_error: huge,
            result: null,
            started_at: 1,
            finished_at: 2,
            not_before: null,
            offline_since: null,
          })),
      },
      schedule: {
        list: () =>
          Array.from({ length: 500 }, (_, i) => ({
            id: i,
            user_id: "u",
            platform: "t",
            chat_id: "c",
            kind: "message" as const,
            text: huge,
            check_command: null,
            check_prompt: null,
            notify: "always" as const,
            due_at: i,
            time_zone: "Europe/Berlin",
            every_s: null,
            cron: "0 3 * * *",
            max_runs: null,
            run_count: 2,
            late_policy: "skip" as const,
            status: "pending" as const,
            created_at: 1,
            updated_at: 1,
            created_by: null,
            cancelled_by: null,
            sent_at: null,
            sent_message_id: null,
            last_error: null,
            last_result: null,
            event_file: null,
            event_stamp: null,
          })),
      },
      approvals: {
        pendingFor: () =>
          Array.from({ length: 100 }, (_, i) => ({
            id: `a${i}`,
            what: huge,
            askedAt: 1,
            expiresAt: 2,
            chatId: "c".repeat(1000),
          })),
      },
    };
    const overview = buildOverview("u", sources);
    expect(() => Overview.parse(overview)).not.toThrow();
    expect(overview.sessions).toHaveLength(OVERVIEW_LIMITS.sessions);
    // Working sessions first, then the most recently used.
    expect(overview.sessions.slice(0, 3).map((s) => [s.id, s.busy])).toEqual([
      ["48", true],
      ["46", true],
      ["44", true],
    ]);
    expect(overview.sessions[0]?.progress).toHaveLength(OVERVIEW_LIMITS.progressLines);
    expect(overview.sessions[0]?.turns).toHaveLength(OVERVIEW_LIMITS.turns);
    expect(overview.sessions[0]?.turns.at(-1)?.prompt).toMatch(/^x{299}…$/);
    expect(overview.schedule[0]?.repeat).toBe('cron "0 3 * * *", run 2');
    expect(overview.tasks[0]?.output_tail).toMatch(/^…x{1999}$/);
    const bytes = Buffer.byteLength(
      JSON.stringify({ type: "overview", id: "o", user_id: "u", at: 1, overview }),
    );
    expect(bytes).toBeLessThan(400_000);
  });

  it("gathers notices for a short while, splits past 100 users, and drops them while disconnected", () => {
    vi.useFakeTimers(); // the gathering time passes when the test says so
    onCleanup(() => {
      vi.useRealTimers();
    });
    const sent: OverviewChangedFrame[] = [];
    let connected = false;
    const changes = new OverviewChanges({
      send: (f) => sent.push(f),
      connected: () => connected,
      delayMs: 20,
    });
    onCleanup(() => changes.close());
    changes.changed("a");
    vi.advanceTimersByTime(40);
    expect(sent).toEqual([]);
    connected = true;
    for (let i = 0; i < 150; i++) changes.changed(`u${i % 120}`);
    vi.advanceTimersByTime(19);
    expect(sent).toEqual([]); // not yet: gathered
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(2);
    expect(sent.map((f) => f.user_ids.length)).toEqual([100, 20]);
    changes.changed("late");
    connected = false;
    vi.advanceTimersByTime(40);
    expect(sent).toHaveLength(2); // the link went down before it was sent
  });
});
