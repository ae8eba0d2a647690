import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createTestLogger, fcParams, processRunning, waitFor } from "@phonework/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CodingTurns } from "../src/contracts/coding-turns.ts";
import { createCheckRunner } from "../src/schedule/check-runner.ts";
import type { ScheduledJob } from "../src/schedule/job.ts";
import { openStateDatabase } from "../src/state-database.ts";
import { TaskRunner } from "../src/tasks/task-runner.ts";
import { type TaskRecord, TaskStore } from "../src/tasks/task-store.ts";
import { ALICE, sandboxRig } from "./sandbox-support.ts";
import { DESTRUCTIVE, ORDINARY, PROGRAM, WRAPPERS, wrapChains, wrapped } from "./shell-cases.ts";
import { onCleanup } from "./support.ts";

// A sandboxed command keeps everything the unsandboxed runner promised: the timeout, /stop and
// the output bound, with no process left behind (not even one that left the process group, or
// one whose host died); the network switch; and the command text reaching `sh -c` unchanged.

/** A unique `sleep` to look for in /proc (bwrap's own command line holds it too until it is gone). */
let sleeps = 0;
const sleepMarker = () => `sleep ${process.pid % 1000}.${++sleeps}${Date.now() % 100_000}`;

async function listen(): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((_request, response) => {
    hits++;
    response.end("NET-OK");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/`, hits: () => hits };
}

/** A node one-liner fetching `url`: prints the body, or the error code and exits 7. */
const fetchWith = (url: string) =>
  `${process.execPath} -e 'fetch("${url}").then((r) => r.text()).then(console.log, (e) => { console.error(e.cause?.code ?? e.message); process.exit(7); })'`;

describe("sandbox: network", () => {
  it("SANDBOX_NETWORK=off: a connection to a loopback server fails; on: it works", async () => {
    const { url, hits } = await listen();
    const off = await sandboxRig({ SANDBOX_NETWORK: "off" }).run(fetchWith(url));
    expect(off.exitCode).toBe(7);
    expect(off.stderr).toMatch(/ECONNREFUSED|ENETUNREACH/);
    expect(hits()).toBe(0);
    const on = await sandboxRig({ SANDBOX_NETWORK: "on" }).run(fetchWith(url));
    expect(on.stdout).toBe("NET-OK\n");
    expect(hits()).toBe(1);
  });
});

describe("sandbox: ending commands", () => {
  it("a timeout kills the whole tree, also what left the process group", async () => {
    const rig = sandboxRig();
    const marker = sleepMarker();
    const result = await rig.run(`setsid ${marker} & (${marker} &); ${marker}`, ALICE, { timeoutMs: 400 });
    expect(result.timedOut).toBe(true);
    await waitFor(() => !processRunning(marker), { timeoutMs: 5000, message: `no ${marker} left` });
  });

  it("/stop (the abort signal) kills the whole tree", async () => {
    const rig = sandboxRig();
    const marker = sleepMarker();
    const controller = new AbortController();
    const run = rig.run(`setsid ${marker} & bash -c "${marker}" & touch started; ${marker}`, ALICE, {
      signal: controller.signal,
    });
    await waitFor(() => existsSync(join(rig.workingDir, "started")), { message: "the command to start" });
    controller.abort();
    const result = await run;
    expect(result.cancelled).toBe(true);
    await waitFor(() => !processRunning(marker), { timeoutMs: 5000, message: `no ${marker} left` });
  });

  it("a command that ends takes what it left running with it (nohup, setsid)", async () => {
    const rig = sandboxRig();
    const marker = sleepMarker();
    const result = await rig.run(`nohup ${marker} >/dev/null 2>&1 & setsid ${marker} & echo started`);
    expect(result.stdout).toBe("started\n");
    await waitFor(() => !processRunning(marker), { timeoutMs: 5000, message: `no ${marker} left` });
  });

  it("when the host process dies, its sandboxed commands die with it", async () => {
    const rig = sandboxRig();
    const marker = sleepMarker();
    const argv = rig.sandbox.forScope(ALICE)(["/bin/sh", "-c", `touch started; ${marker}`], rig.workingDir);
    // A stand-in host: starts the command as runCommand does (own process group), then is SIGKILLed.
    const host = spawn(
      process.execPath,
      [
        "-e",
        `const [file, ...args] = JSON.parse(process.argv[1]);
         require("child_process").spawn(file, args, { detached: true, stdio: "ignore" });
         setInterval(() => {}, 1000);`,
        JSON.stringify(argv),
      ],
      { stdio: "ignore" },
    );
    onCleanup(() => void host.kill("SIGKILL"));
    // Once it runs: bwrap itself cannot arm --die-with-parent before its sandbox exists.
    await waitFor(() => existsSync(join(rig.workingDir, "started")), { message: "the command to start" });
    host.kill("SIGKILL");
    await waitFor(() => !processRunning(marker), { timeoutMs: 5000, message: `no ${marker} left` });
  });

  it("output past the limit is cut with a marker, keeping the start and the end", async () => {
    const result = await sandboxRig().run("seq 1 20000", ALICE, { maxOutputChars: 8000 });
    expect(result.stdout).toMatch(/…\[\d+ characters truncated\]…/);
    expect(result.stdout.startsWith("1\n2\n")).toBe(true);
    expect(result.stdout.endsWith("19999\n20000\n")).toBe(true);
    expect(result.stdout.length).toBeLessThan(8200);
  });
});

describe("sandbox: the command reaches `sh -c` unchanged", () => {
  // The shell-guard's generated commands: the sandbox's argv ends in exactly /bin/sh -c <text>.
  const guardCases = fc.oneof(
    fc.constantFrom(...ORDINARY).chain((command) => wrapChains(PROGRAM).map((w) => wrapped(command, w))),
    fc
      .constantFrom(...DESTRUCTIVE)
      .chain(([command, kind]) => wrapChains(kind).map((w) => wrapped(command, w))),
  );
  const shellish = fc.string({
    unit: fc.constantFrom(..."rm -f/~$(){}`'\"\\;&|<>\n\t*#!=.abcshü名%".split("")),
    maxLength: 120,
  });

  it("in the argv bwrap is given, for every guard case and random shell text", () => {
    const rig = sandboxRig();
    const wrap = rig.sandbox.forScope(ALICE);
    fc.assert(
      fc.property(fc.oneof(guardCases, shellish), (command) => {
        const argv = wrap(["/bin/sh", "-c", command], rig.workingDir);
        expect(argv.slice(argv.indexOf("--"))).toEqual(["--", "/bin/sh", "-c", command]);
      }),
      fcParams({ numRuns: 1000 }),
    );
  });

  it("as the shell inside sees it: its own command line, byte for byte", async () => {
    const rig = sandboxRig();
    await fc.assert(
      fc.asyncProperty(fc.oneof(guardCases, shellish), async (text) => {
        // Prints the shell's argv from the sandbox's /proc, then stops before the rest is run.
        const command = `cat /proc/$$/cmdline; exit 0\n${text}`;
        const result = await rig.run(command);
        expect(result.stdout).toBe(`/bin/sh\0-c\0${command}\0`);
      }),
      fcParams({ numRuns: 60 }),
    );
  });

  it("and the wrappers still run what they wrap inside it", async () => {
    const rig = sandboxRig();
    const local = WRAPPERS.filter(({ name }) => !["ssh", "su -c", "sudo -u"].includes(name));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(wrapChains(PROGRAM, local), async (wraps) => {
        const marker = join(rig.workingDir, `ran-${++run}.txt`);
        // What a wrapper put in the background ends with the command in the sandbox (its pid
        // namespace), and `wait` cannot wait for a grandchild (`sh -c 'nohup … &'`): the command
        // waits for the marker itself, up to 5 s.
        const result = await rig.run(
          `${wrapped(`touch ${marker}`, wraps)}\nwait\nfor i in $(seq 50); do [ -e ${marker} ] && break; sleep 0.1; done`,
        );
        await waitFor(() => existsSync(marker), { timeoutMs: 3000, message: `${marker}: ${result.stderr}` });
      }),
      fcParams({ numRuns: 30 }),
    );
  });
});

describe("sandbox: every way PhoneWork runs a command", () => {
  it("run_background tasks and scheduled checks run in it too", async () => {
    const rig = sandboxRig();
    const db = openStateDatabase(join(rig.workingDir, "..", "tasks.db"));
    onCleanup(() => void db.close());
    const finished: TaskRecord[] = [];
    const runner = new TaskRunner({
      store: TaskStore.open(db, Date.now()),
      timeoutMs: 10_000,
      clock: { now: () => Date.now() },
      logger: createTestLogger().logger,
      onFinished: (task) => finished.push(task),
      sandbox: rig.sandbox,
    });
    onCleanup(() => runner.stopAll());
    const attempt = `cat ${rig.secrets.dataKey}; touch ${rig.outside}/task; echo task-ran`;
    runner.submitShell({ ...ALICE, command: attempt, cwd: rig.workingDir, description: "probe" });
    const task = await waitFor(() => finished[0]);
    for (const said of ["No such file or directory", "Read-only file system", "task-ran"])
      expect(task.output).toContain(said);

    // A check command never asks the coding sessions.
    const check = createCheckRunner({
      workingDir: rig.workingDir,
      timeoutMs: 10_000,
      coding: {} as CodingTurns,
      sandbox: rig.sandbox,
    });
    const job = { user_id: ALICE.userId, chat_id: ALICE.chatId, platform: ALICE.platform } as ScheduledJob;
    const outcome = await check(
      { ...job, check_command: attempt.replaceAll("task", "check") },
      new AbortController().signal,
    );
    for (const said of ["No such file or directory", "Read-only file system", "check-ran"])
      expect(outcome.output).toContain(said);
    expect(existsSync(join(rig.outside, "task")) || existsSync(join(rig.outside, "check"))).toBe(false);
    expect(readFileSync(rig.secrets.dataKey, "utf8")).toContain("DATA-DIR-KEY"); // still there, just not visible
  });
});
