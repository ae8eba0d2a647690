import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WorkerResult } from "@phonework/protocol";
import {
  type ChatRequest,
  createTestLogger,
  type FakeOpenAI,
  makeTempDir,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type Tool } from "../src/contracts/tool.ts";
import { createOpenAIModelClient } from "../src/model/model-client.ts";
import { createRunShellTool } from "../src/shell/run-shell.ts";
import { runWorker, WORKER_STOP_GRACE_MS, type WorkerTask } from "../src/workers/worker-run.ts";

// A worker against the real OpenAI SDK, the fake OpenAI server and the real run_shell tool.

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Env {
  fake: FakeOpenAI;
  workDir: string;
  scratchRoot: string;
}

async function setup(): Promise<Env> {
  const fake = await startFakeOpenAI();
  const work = makeTempDir();
  const scratch = makeTempDir();
  cleanups.push(fake.close, work.remove, scratch.remove);
  return { fake, workDir: work.path, scratchRoot: scratch.path };
}

function run(
  env: Env,
  task: Partial<WorkerTask> = {},
  options: { signal?: AbortSignal; now?: () => number; tools?: Tool[]; maxSteps?: number } = {},
) {
  return runWorker(
    {
      taskId: "t-1",
      objective: "count the files",
      context: "for a report",
      skills: ["run_shell"],
      ttlS: 30,
      ...task,
    },
    {
      model: createOpenAIModelClient({
        baseURL: env.fake.url,
        apiKey: "k",
        model: "fake-model",
        maxRetries: 0,
      }),
      tools: options.tools ?? [createRunShellTool(env.workDir)],
      scratchRoot: env.scratchRoot,
      maxSteps: options.maxSteps ?? 6,
      now: options.now ?? Date.now,
      logger: createTestLogger().logger,
      owner: { userId: "u1", chatId: "c1", platform: "memory" },
    },
    options.signal ?? new AbortController().signal,
  );
}

const systemText = (request: ChatRequest | undefined) => String(request?.messages[0]?.content ?? "");
const scratchOf = (request: ChatRequest) =>
  /scratch directory: (\S+) \(/.exec(systemText(request))?.[1] ?? "";
const answer = (fields: Record<string, unknown>) => ({ text: JSON.stringify(fields) });
const processGone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
};
/** A shell command that records its pid, then outlives any TTL. */
const SLEEPER = { name: "run_shell", arguments: { command: "echo $$ > pid; exec sleep 30" } };
const readPid = (env: Env) =>
  waitFor(() => Number(readFileSync(join(env.workDir, "pid"), "utf8")) || undefined, {
    message: "the pid file",
  });

describe("runWorker", () => {
  it("runs the task with only its tools and no history, and returns the model's JSON as the result", async () => {
    const env = await setup();
    for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(env.workDir, name), name);
    let scratch = "";
    let scratchExisted = false;
    env.fake.script(
      (request) => {
        scratch = scratchOf(request);
        scratchExisted = existsSync(scratch);
        return {
          toolCalls: [
            { name: "run_shell", arguments: { command: `ls | wc -l; echo x > ${scratch}/note.txt` } },
          ],
        };
      },
      answer({
        task_id: "made-up",
        status: "success",
        result: "3 files",
        details: { count: 3 },
        artifacts: ["/tmp/report.txt"],
        duration: 999,
      }),
    );
    const times = [1000, 3500];
    const { outcome, result } = await run(env, {}, { now: () => times.shift() ?? 3500 });

    expect(outcome).toBe("completed");
    expect(result).toEqual({
      task_id: "t-1",
      status: "success",
      result: "3 files",
      details: '{"count":3}',
      artifacts: ["/tmp/report.txt"],
      duration: 2.5,
      errors: [],
    });
    expect(WorkerResult.parse(result)).toEqual(result);
    expect(env.fake.toolResults(env.fake.requests[1])[0]).toMatch(/exit code 0\nstdout:\n```\n\s*3\n```/);
    expect(scratchExisted).toBe(true);
    expect(scratch.startsWith(join(env.scratchRoot, "phonework-worker-t-1-"))).toBe(true);
    expect(existsSync(scratch)).toBe(false);

    expect(env.fake.requests).toHaveLength(2);
    const [first, second] = env.fake.requests;
    expect(systemText(first)).toContain("Objective: count the files");
    expect(systemText(first)).toContain("Task ID: t-1");
    expect(first?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(second?.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(env.fake.lastUserText(first)).toContain("t-1");
    expect(env.fake.toolNames(first)).toEqual(["run_shell"]);
    expect(env.fake.toolNames(second)).toEqual(["run_shell"]);
  });

  it("reads a JSON object in a fence with prose around it", async () => {
    const env = await setup();
    const json = JSON.stringify({ status: "partial", result: "half done", errors: ["b.txt unreadable"] });
    env.fake.script({ text: `Here is my result:\n\`\`\`json\n${json}\n\`\`\`\nThat is all.` });
    const { outcome, result } = await run(env);
    expect(outcome).toBe("completed");
    expect(result).toMatchObject({ task_id: "t-1", status: "partial", result: "half done", artifacts: [] });
    expect(result.errors).toEqual(["b.txt unreadable"]);
    expect(env.fake.requests).toHaveLength(1);
  });

  it("asks once, without tools, for the JSON when the answer is prose", async () => {
    const env = await setup();
    env.fake.script({ text: "I counted 3 files." }, answer({ status: "success", result: "3 files" }));
    const { outcome, result } = await run(env);
    expect(outcome).toBe("completed");
    expect(result).toMatchObject({ status: "success", result: "3 files" });
    expect(env.fake.requests).toHaveLength(2);
    const repair = env.fake.requests[1];
    expect(repair?.tools).toBeUndefined();
    expect(env.fake.lastUserText(repair)).toContain("only the JSON result");
    expect(repair?.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(repair?.messages[2]?.content).toBe("I counted 3 files.");
  });

  it("keeps the prose as a partial result when the repair is prose too", async () => {
    const env = await setup();
    env.fake.script({ text: "I counted 3 files." }, { text: "Sorry, 3 files." });
    const { outcome, result } = await run(env);
    expect(env.fake.requests).toHaveLength(2);
    expect(outcome).toBe("completed");
    expect(result).toMatchObject({ task_id: "t-1", status: "partial", result: "I counted 3 files." });
    expect(result.errors[0]).toContain("not in the result format");
  });

  it("reports the model's failed status as a failed outcome with its errors", async () => {
    const env = await setup();
    env.fake.script(answer({ status: "failed", result: "could not read", errors: ["permission denied"] }));
    const { outcome, result } = await run(env);
    expect(outcome).toBe("failed");
    expect(result).toMatchObject({
      status: "failed",
      result: "could not read",
      errors: ["permission denied"],
    });
  });

  it("fails with the reason when the provider fails or the steps run out", async () => {
    const env = await setup();
    env.fake.script({ status: 500 });
    const broken = await run(env);
    expect(broken.outcome).toBe("failed");
    expect(broken.result.errors[0]).toMatch(/model provider failed: HTTP 500/);

    env.fake.script({ toolCalls: [{ name: "run_shell", arguments: { command: "true" } }] });
    const endless = await run(env, {}, { maxSteps: 1 });
    expect(endless.outcome).toBe("failed");
    expect(endless.result.errors).toEqual(["stopped after 1 steps without an answer"]);
  });

  it("times out at the TTL, kills the command it started and removes its scratch directory", async () => {
    const env = await setup();
    env.fake.script({ toolCalls: [SLEEPER] });
    const started = Date.now();
    const running = run(env, { ttlS: 1 });
    const pid = await readPid(env);
    expect(readdirSync(env.scratchRoot)).toHaveLength(1);
    const { outcome, result } = await running;
    expect(Date.now() - started).toBeLessThan(3500);
    expect(outcome).toBe("timeout");
    expect(result.status).toBe("failed");
    expect(result.errors).toContain("timed out after 1s");
    await waitFor(() => processGone(pid), { timeoutMs: 5000, message: `pid ${pid} to exit` });
    expect(readdirSync(env.scratchRoot)).toEqual([]);
    expect(env.fake.requests).toHaveLength(1);
  });

  it("is cancelled by the caller's signal, killing the command", async () => {
    const env = await setup();
    env.fake.script({ toolCalls: [SLEEPER] });
    const controller = new AbortController();
    const running = run(env, {}, { signal: controller.signal });
    const pid = await readPid(env);
    const stopped = Date.now();
    controller.abort("user said stop");
    const { outcome, result } = await running;
    expect(Date.now() - stopped).toBeLessThan(2500);
    expect(outcome).toBe("failed");
    expect(result.errors).toEqual(["cancelled: user said stop"]);
    await waitFor(() => processGone(pid), { timeoutMs: 5000, message: `pid ${pid} to exit` });
    expect(readdirSync(env.scratchRoot)).toEqual([]);
  });

  it("returns within the TTL plus the grace even if a tool ignores the abort", async () => {
    const env = await setup();
    const stuck = defineTool({
      name: "stuck",
      description: "never returns",
      schema: z.object({}),
      execute: () => new Promise<string>(() => {}),
    });
    env.fake.script({ toolCalls: [{ name: "stuck", arguments: {} }] });
    const started = Date.now();
    const { outcome, result } = await run(env, { ttlS: 1 }, { tools: [stuck] });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(1000 + WORKER_STOP_GRACE_MS + 1000);
    expect(outcome).toBe("timeout");
    expect(result.errors).toContain("timed out after 1s");
    expect(readdirSync(env.scratchRoot)).toEqual([]);
  });
});
