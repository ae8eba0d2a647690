import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, startFakeRouter } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { findExecutable } from "../src/os/find-executable.ts";
import { onCleanup, startHost } from "./support.ts";

// A host advertises only the coding CLIs it has, and a missing one is a sentence before any
// session exists — not `spawn claude ENOENT` after the session was created.

const SECRET = "cli-test-secret";

function binDir(...names: string[]): string {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  for (const name of names) {
    writeFileSync(join(dir.path, name), "#!/bin/sh\nexit 0\n");
    chmodSync(join(dir.path, name), 0o755);
  }
  return dir.path;
}

async function hostWithPath(path: string) {
  const router = await startFakeRouter({ secret: SECRET });
  onCleanup(() => router.close());
  const host = startHost(router.url, SECRET, {}, { env: { PATH: path } });
  await host.ready();
  return { router, host };
}

const ask = async (router: Awaited<ReturnType<typeof hostWithPath>>["router"], id: string, text: string) => {
  router.latest().send({ type: "forward", id, user_id: "u1", chat_id: "c1", platform: "t", text });
  return String((await router.latest().inbox.next("forward_response", (f) => f.id === id)).text);
};

describe("coding CLIs on this host", () => {
  it("only the CLIs found on PATH are advertised as capabilities", async () => {
    const { router } = await hostWithPath(binDir("codex"));
    const capabilities = router.registrations[0]?.capabilities as string[];
    expect(capabilities).toContain("codex");
    expect(capabilities).not.toContain("claude_code");
  });

  it("/new with a missing CLI says how to fix it and creates no session", async () => {
    const { router, host } = await hostWithPath(binDir());
    expect(await ask(router, "r1", "/new demo claude fix it")).toBe(
      "❌ `claude` not found on this host: install it (npm i -g @anthropic-ai/claude-code) or set CLAUDE_BIN",
    );
    expect(await ask(router, "r2", "/new demo codex")).toContain("`codex` not found on this host");
    expect(host.sessions.list("u1")).toEqual([]);
    expect(await ask(router, "r3", "/sessions")).toContain("No coding sessions");
  });

  it("finds a command on PATH or by path, only when it is an executable file", () => {
    const dir = binDir("tool");
    writeFileSync(join(dir, "plain"), "not executable");
    expect(findExecutable("tool", `/nonexistent:${dir}`)).toBe(join(dir, "tool"));
    expect(findExecutable(join(dir, "tool"), "")).toBe(join(dir, "tool"));
    expect(findExecutable("plain", dir)).toBeUndefined();
    expect(findExecutable("tool", undefined)).toBeUndefined();
    expect(findExecutable(dir, dir)).toBeUndefined(); // a directory is not a command
  });
});
