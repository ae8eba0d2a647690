import { createTestLogger, makeTempDir, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { turnOutcome } from "../src/coding/codex-agent.ts";
import { TurnWatcher } from "../src/coding/codex-turn-watcher.ts";
import type { CodingAgent, TurnRequest } from "../src/coding/coding-agent.ts";
import { codingTurns } from "../src/coding/coding-turns.ts";
import { SessionManager } from "../src/coding/session-manager.ts";
import { SessionStore } from "../src/coding/session-store.ts";
import { createCheckRunner } from "../src/schedule/check-runner.ts";
import type { ScheduledJob } from "../src/schedule/job.ts";
import { formatTaskList } from "../src/tasks/format-tasks.ts";
import { finishedStatus, TaskRunner } from "../src/tasks/task-runner.ts";
import { TaskStore } from "../src/tasks/task-store.ts";
import { onCleanup } from "./support.ts";

// How a coding turn ends, as data: the agent's result, the session manager's outcome, the
// background task's status; and when a Codex turn counts as unable to reach its provider.

describe("task status from a job's outcome", () => {
  it.each([
    [{ ok: true, output: "" }, false, "done"],
    [{ ok: false, output: "" }, false, "failed"],
    [{ ok: false, stopped: true, output: "" }, false, "stopped"],
    [{ ok: true, output: "" }, true, "cancelled"],
    [{ ok: false, stopped: true, output: "" }, true, "cancelled"],
  ] as const)("%o, cancelled through the runner: %s → %s", (outcome, cancelled, status) => {
    expect(finishedStatus(outcome, cancelled)).toBe(status);
  });

  it("lists a stopped task as stopped", () => {
    const task = {
      id: "abc123",
      kind: "session" as const,
      description: "codex · demo: build it",
      command: "build it",
      cwd: "/",
      user_id: "u",
      chat_id: "c",
      platform: "p",
      status: "stopped" as const,
      started_at: 1000,
      finished_at: 6000,
      output: "⏹️ Stopped.",
    };
    expect(formatTaskList([task], 9000)).toBe("Tasks:\n⏹️ #abc123 stopped in 5s — codex · demo: build it");
  });
});

describe("a Codex turn's outcome", () => {
  const end = (status: string, text = "", error?: string) => ({ status, text, error });
  it.each([
    [end("completed", "Fixed."), undefined, { ok: true, stopped: false, text: "Fixed." }],
    [end("interrupted"), undefined, { ok: false, stopped: true, text: "⏹️ Stopped." }],
    [end("failed", "", "quota"), undefined, { ok: false, stopped: false, text: "quota" }],
    [end("interrupted"), "no provider", { ok: false, stopped: false, text: "no provider" }],
    // Codex finished before the interrupt landed: its answer stands.
    [end("completed", "Fixed."), "no provider", { ok: true, stopped: false, text: "Fixed." }],
  ])("%o, unreachable %s → %o", (turnEnd, unreachable, outcome) => {
    expect(turnOutcome(turnEnd, unreachable)).toEqual(outcome);
  });
});

describe("reaching Codex's model provider", () => {
  const retrying = (details: string, n = 1) => ({
    threadId: "t",
    turnId: "turn-1",
    willRetry: true,
    error: { message: `Reconnecting... ${n}/5`, additionalDetails: details },
  });
  const watch = (signal = new AbortController().signal) => {
    const reported: string[] = [];
    const watcher = new TurnWatcher(
      { userId: "u", chatId: "c", platform: "p", project: "demo" },
      signal,
      () => {},
      (error) => reported.push(error),
    );
    watcher.turnId = "turn-1";
    return { watcher, reported };
  };
  const userMessage = { threadId: "t", turnId: "turn-1", item: { type: "userMessage", id: "u1" } };

  it("retrying past the deadline with no model output: unreachable, with the provider's error", () => {
    const { watcher, reported } = watch();
    watcher.onNotification("item/started", userMessage); // Codex echoes the prompt before calling the model
    watcher.onNotification("error", retrying("Connection failed: error sending request"));
    expect(reported).toEqual([]);
    watcher.connectDeadline();
    expect(reported).toEqual(["Connection failed: error sending request"]);
    expect(watcher.unreachable).toBe("Connection failed: error sending request");
    watcher.onNotification("error", retrying("still down", 2));
    expect(reported).toHaveLength(1); // reported once
  });

  it("the first retry error after the deadline counts, and the last error is the one reported", () => {
    const { watcher, reported } = watch();
    watcher.connectDeadline();
    expect(reported).toEqual([]); // a slow provider says nothing until it answers
    watcher.onNotification("error", { ...retrying("x"), error: { message: "Reconnecting... 1/5" } });
    expect(reported).toEqual(["Reconnecting... 1/5"]);
  });

  it("a provider that answered is never cut off, however long the turn runs", () => {
    const { watcher, reported } = watch();
    watcher.onNotification("item/agentMessage/delta", { threadId: "t", turnId: "turn-1", delta: "hi" });
    watcher.onNotification("error", retrying("stream disconnected"));
    watcher.connectDeadline();
    expect(reported).toEqual([]);
    expect(watcher.unreachable).toBeUndefined();
  });

  it("a turn already stopped by the user, or already over, is left alone", () => {
    const stop = new AbortController();
    const stopped = watch(stop.signal);
    stopped.watcher.onNotification("error", retrying("down"));
    stop.abort();
    stopped.watcher.connectDeadline();
    expect(stopped.reported).toEqual([]);

    const over = watch();
    over.watcher.onNotification("error", retrying("down"));
    over.watcher.end({ status: "failed", text: "", error: "down" });
    over.watcher.connectDeadline();
    expect(over.reported).toEqual([]);
  });

  it("errors of another turn on the thread do not count", () => {
    const { watcher, reported } = watch();
    watcher.onNotification("error", { ...retrying("down"), turnId: "turn-0" });
    watcher.connectDeadline();
    expect(reported).toEqual([]);
  });
});

describe("a coding turn stopped in the background", () => {
  /** An agent whose turns run until stopped, or end as told. */
  const agent = (): CodingAgent & { started: TurnRequest[] } => {
    const started: TurnRequest[] = [];
    return {
      name: "codex",
      started,
      runTurn: (request) => {
        started.push(request);
        if (request.prompt === "fail") {
          return Promise.resolve({ ok: false, stopped: false, text: "quota", agentSessionId: "th" });
        }
        if (request.prompt === "pass") {
          return Promise.resolve({ ok: true, stopped: false, text: "❌ count: 0", agentSessionId: "th" });
        }
        return new Promise((resolve) =>
          request.signal.addEventListener("abort", () =>
            resolve({ ok: false, stopped: true, text: "⏹️ Stopped.", agentSessionId: "th" }),
          ),
        );
      },
      close: async () => {},
    };
  };

  const setup = () => {
    const { logger } = createTestLogger();
    const clock = { now: () => Date.now() };
    const store = TaskStore.inMemory();
    const tasks = new TaskRunner({ store, timeoutMs: 60_000, clock, logger, onFinished: () => {} });
    const fake = agent();
    const dir = makeTempDir();
    onCleanup(dir.remove);
    const sessions = new SessionManager({
      store: SessionStore.inMemory(),
      agents: () => fake,
      workingDir: dir.path,
      maxPending: 5,
      longTurnMs: 10,
      tasks,
      clock,
      logger,
      onChange: () => {},
    });
    const owner = { userId: "u", chatId: "c", platform: "p" };
    onCleanup(() => sessions.stopAll());
    const session = sessions.create(owner, "demo", "codex");
    return { sessions, tasks, session, owner, fake };
  };

  it("/stop on a turn that moved to the background: the task is stopped, not done", async () => {
    const { sessions, tasks, session, owner } = setup();
    const reply = await sessions.send(session, "build it", {
      ...owner,
      signal: new AbortController().signal,
      progress: () => {},
    });
    const id = /task #([0-9a-f]+)/.exec(reply)?.[1] ?? "";
    expect(tasks.get("u", id)?.status).toBe("running");
    expect(sessions.stop("u")?.id).toBe(session.id);
    await waitFor(() => tasks.get("u", id)?.status !== "running");
    expect(tasks.get("u", id)).toMatchObject({ status: "stopped", output: "⏹️ Stopped." });
  });

  it("run() resolves with the outcome as data", async () => {
    const { sessions, session, owner } = setup();
    const ctx = { ...owner, signal: new AbortController().signal, progress: () => {} };
    expect(await sessions.run(session, "fail", ctx)).toEqual({
      ok: false,
      stopped: false,
      text: "❌ codex reported an error:\nquota",
    });
    const running = sessions.run(session, "wait", ctx);
    await waitFor(() => sessions.stop("u") !== undefined);
    expect(await running).toEqual({ ok: false, stopped: true, text: "⏹️ Stopped." });
  });

  it("a check job's coding prompt passes or fails by the turn's outcome, not by its text", async () => {
    const { sessions, owner } = setup();
    const check = createCheckRunner({ workingDir: "/", timeoutMs: 60_000, coding: codingTurns(sessions) });
    const job = (prompt: string) =>
      ({
        user_id: owner.userId,
        chat_id: owner.chatId,
        platform: owner.platform,
        check_prompt: prompt,
        text: prompt,
      }) as ScheduledJob;
    const signal = new AbortController().signal;
    expect(await check(job("fail"), signal)).toEqual({
      ok: false,
      output: "❌ codex reported an error:\nquota",
    });
    // A turn that succeeded passes, even when its answer happens to start with ❌.
    expect(await check(job("pass"), signal)).toEqual({ ok: true, output: "❌ count: 0" });
    const stopped = check(job("wait"), signal);
    await waitFor(() => sessions.stop("u") !== undefined);
    expect(await stopped).toEqual({ ok: false, output: "⏹️ Stopped." });
  });
});
