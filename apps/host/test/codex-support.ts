import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeResponses,
  type FakeRouter,
  makeTempDir,
  repoRoot,
  startFakeResponses,
  startFakeRouter,
} from "@phonework/testkit";
import type { Host } from "../src/create-host.ts";
import { onCleanup, startHost } from "./support.ts";

// The Codex test world: a real `codex app-server` behind a real host, the model a fake Responses
// API, HOME and CODEX_HOME in a fresh temp dir (project `demo` under WORKING_DIR).

const CODEX_BIN = join(repoRoot, "node_modules", ".bin", "codex");

/** Starts the world and waits for the host; `overrides` adds host config keys. `root`: the temp dir. */
export async function startCodexWorld(
  secret: string,
  overrides: Record<string, unknown> = {},
): Promise<{ model: FakeResponses; router: FakeRouter; host: Host; root: string }> {
  const model = await startFakeResponses();
  onCleanup(() => model.close());
  const dir = makeTempDir();
  onCleanup(() => dir.removeWhenQuiet()); // Codex's helpers may still be flushing into CODEX_HOME
  const root = realpathSync(dir.path);
  for (const sub of ["work/demo", "home", "codex-home", "data"])
    mkdirSync(join(root, sub), { recursive: true });
  writeFileSync(join(root, "codex-home", "config.toml"), model.codexConfig());
  const router = await startFakeRouter({ secret });
  onCleanup(() => router.close());
  const host = startHost(
    router.url,
    secret,
    {
      WORKING_DIR: join(root, "work"),
      DATA_DIR: join(root, "data"),
      CODEX_BIN,
      CODEX_APPROVAL_POLICY: "never",
      ...overrides,
    },
    {
      env: {
        ...process.env,
        HOME: join(root, "home"),
        CODEX_HOME: join(root, "codex-home"),
        OPENAI_API_KEY: "sk-test",
      },
    },
  );
  await host.ready();
  return { model, router, host, root };
}
