import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { type FakeRouter, makeTempDir, processRunning, startFakeRouter, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { HostDeps } from "../src/create-host.ts";
import { onCleanup, startHost } from "./support.ts";

// /term and /keys from chat, through a real host behind the fake router: real PTYs, real programs,
// the screen rendered by @xterm/headless.

const SECRET = "terminal-chat-secret";
/**
 * For tests of other things that start `cat` or `sleep`, which print nothing: their /term answer
 * comes once the wait for a first output ran out, here half a second rather than five.
 */
const SILENT_PROGRAMS = { chatTerminalWaits: { startOutputMs: 500 } };

async function start(overrides: Record<string, unknown> = {}, deps: Partial<HostDeps> = {}) {
  const router = await startFakeRouter({ secret: SECRET });
  onCleanup(() => router.close());
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const host = startHost(
    router.url,
    SECRET,
    { WORKING_DIR: realpathSync(dir.path), ...overrides },
    { env: { ...process.env, SHELL: "/bin/sh" }, ...deps },
  );
  await host.ready();
  return { router, host, ask: asker(router), workingDir: realpathSync(dir.path) };
}

function asker(router: FakeRouter) {
  let n = 0;
  return async (text: string, user = "u1"): Promise<string> => {
    const id = `r${++n}`;
    router
      .latest()
      .send({ type: "forward", id, user_id: user, chat_id: `chat-${user}`, platform: "t", text });
    const answer = await router.latest().inbox.next("forward_response", (f) => f.id === id, 15_000);
    return String(answer.text);
  };
}

describe("/term and /keys", () => {
  it("drive a program that asks for a line to its end", async () => {
    const { ask } = await start();
    const first = await ask(`/term sh -c 'printf "name? "; read n; echo "hello $n"'`);
    expect(first).toBe(
      `🖥 \`sh -c 'printf "name? "; read n; echo "hello $n"'\` · running\n\`\`\`\nname?\n\`\`\``,
    );
    const second = await ask("/keys alice<Enter>");
    expect(second).toContain("· exited with code 0");
    expect(second).toContain("name? alice\nhello alice\n```");
    // /term shows the last screen again; /term close forgets it.
    expect(await ask("/term")).toBe(second);
    expect(await ask("/term close")).toMatch(/^Closed "sh -c/);
    expect(await ask("/term")).toBe("No terminal here. /term <command> starts one.");
    expect(await ask("/keys x")).toBe("No terminal here. /term <command> starts one.");
  });

  it("types Ctrl keys and arrows into a REPL", async () => {
    const { ask } = await start();
    expect(await ask("/term python3 -q")).toMatch(/```\n>>>\n```$/);
    expect(await ask("/keys 6*7<Enter>")).toContain(">>> 6*7\n42\n>>>");
    // <Up> recalls the line from readline's history; <C-c> interrupts a running statement.
    expect(await ask("/keys <Up><Enter>")).toMatch(/42\n>>> 6\*7\n42\n>>>\n```$/);
    expect(await ask("/keys import time; time.sleep(30)<Enter>")).toMatch(/time\.sleep\(30\)\n```$/);
    expect(await ask("/keys <C-c>")).toMatch(/KeyboardInterrupt\n>>>\n```$/);
    // The shell around python saw the interrupt too: it reports it (128 + SIGINT) when python ends.
    expect(await ask("/keys <C-d>")).toMatch(/· exited with code (0|130)\n/);
    expect(await ask("/keys more")).toContain("❌ Nothing was typed: the program has ended.");
  });

  it("waits for a program that is slow to print its first screen, as on a busy machine", async () => {
    const { ask } = await start();
    // A REPL that takes a second to start: the answer shows its prompt, not an empty screen.
    expect(await ask(`/term sh -c 'sleep 1; printf ">>> "; exec cat'`)).toMatch(/```\n>>>\n```$/);
  });

  it("after /keys, waits for the output the keys caused however late it comes; keys that cause none are answered after a bounded wait", async () => {
    const { ask } = await start();
    // Echo off: the program's answer, a second after the line, is the only output the keys cause.
    const program = `sh -c 'stty -echo; echo ready; read line; sleep 1; echo "got $line"; exec cat >/dev/null'`;
    expect(await ask(`/term ${program}`)).toMatch(/```\nready\n```$/);
    expect(await ask("/keys hello<Enter>")).toMatch(/```\nready\ngot hello\n```$/);
    // Nothing shows for these keys: the screen as it was, once the wait for output (2 s) ran out.
    const typed = Date.now();
    expect(await ask("/keys unseen<Enter>")).toMatch(/```\nready\ngot hello\n```$/);
    expect(Date.now() - typed).toBeGreaterThanOrEqual(1900);
  });

  it("is one terminal per user: a second /term is refused while the first runs, another user has their own", async () => {
    const { ask } = await start({}, SILENT_PROGRAMS);
    await ask("/term cat");
    expect(await ask("/term top")).toBe(
      '❌ Your terminal still runs "cat": /term shows it, /keys types into it, /term close ends it.',
    );
    await ask("/term sh", "u2");
    expect(await ask("/keys for-cat<Enter>")).toContain("for-cat\nfor-cat");
    expect(await ask("/term", "u2")).not.toContain("for-cat");
    // Once the program ended, /term <command> starts another.
    await ask("/keys <C-d>");
    expect(await ask("/term echo next")).toContain("next");
  });

  it("refuses a terminal past MAX_TERMINALS with a clear message", async () => {
    const { ask } = await start({ MAX_TERMINALS: 1 }, SILENT_PROGRAMS);
    await ask("/term sleep 60");
    expect(await ask("/term sleep 60", "u2")).toBe(
      "❌ this host already runs 1 terminal (MAX_TERMINALS); close one first",
    );
    await ask("/term close");
    expect(await ask("/term echo mine", "u2")).toContain("mine");
  });

  it("closes a chat terminal after TERMINAL_IDLE_S without input, killing its program", async () => {
    const { ask, host } = await start({ TERMINAL_IDLE_S: 1 });
    expect(await ask("/term sleep 31.7182")).toMatch(/^🖥 `sleep 31.7182` · /);
    await waitFor(() => host.terminals.manager.stats().open === 0, { message: "the idle terminal closed" });
    expect(processRunning("sleep 31.7182")).toBe(false);
    expect(await ask("/term")).toBe("No terminal here. /term <command> starts one.");
  });

  it("fences the screen so that backticks on it cannot end the code block", async () => {
    const { ask } = await start();
    const answer = await ask("/term printf '```\\nnot the end\\n```\\n'");
    expect(answer).toContain("\n````\n```\nnot the end\n```\n````");
  });

  it("runs in WORKING_DIR", async () => {
    const { ask, workingDir } = await start();
    expect(await ask("/term pwd")).toContain(`\n${workingDir}\n`);
  });

  it("runs inside the sandbox: the system is read-only, WORKING_DIR is not", async () => {
    const { ask, workingDir } = await start();
    const marker = `/etc/phonework-term-${process.pid}`;
    const screen = await ask(`/term sh -c 'touch ${marker}; echo etc=$?; touch ok.txt; echo here=$?'`);
    expect(screen).toContain("etc=1");
    expect(screen).toContain("here=0");
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(workingDir, "ok.txt"))).toBe(true);
  });
});

describe("terminals on a host where node-pty did not load", () => {
  it("are not offered, and /term says why", async () => {
    const { router, ask } = await start(
      {},
      {
        loadPty: async () => {
          throw new Error("no prebuilt binary for this platform");
        },
      },
    );
    expect(await ask("/term ls")).toBe(
      "❌ terminals are unavailable on this host: no prebuilt binary for this platform",
    );
    expect(router.registrations.at(-1)?.capabilities).not.toContain("terminal");
    expect(router.latest().inbox.ofType("sessions_update")).toEqual([]);
  });
});
