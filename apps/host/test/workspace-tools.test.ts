import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestLogger, type FakeOpenAI, makeTempDir, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { startHostWithModel } from "./support.ts";

// Custom tools in the workspace's tools/, through a real host: loaded and reloaded while it
// runs, offered to the model, bounded by their timeout and /stop, and reported when broken.

async function setup(overrides: Record<string, unknown> = {}, before?: (toolsDir: string) => void) {
  const dir = makeTempDir();
  // The default place: DATA_DIR/host/<node>/workspace.
  const workspace = join(dir.path, "host", "laptop", "workspace");
  const toolsDir = join(workspace, "tools");
  before?.(toolsDir);
  const log = createTestLogger();
  const { router, model } = await startHostWithModel(overrides, dir, { logger: log.logger });
  let next = 0;
  const send = (text: string) => {
    const id = `r${++next}`;
    router.latest().send({ type: "forward", id, user_id: "u1", chat_id: "c1", platform: "t", text });
    return id;
  };
  const answer = async (id: string) =>
    String((await router.latest().inbox.next("forward_response", (f) => f.id === id, 15_000)).text);
  const ask = (text: string) => answer(send(text));
  /** Polls /tools until `pattern` shows (the watcher reloads in the background). */
  const toolsShow = (pattern: RegExp, message: string) =>
    waitFor(
      async () => {
        const listing = await ask("/tools");
        return pattern.test(listing) && listing;
      },
      { timeoutMs: 15_000, intervalMs: 50, message },
    );
  return { model, log, workspace, toolsDir, send, answer, ask, toolsShow };
}

function writeTool(toolsDir: string, name: string, source: string, file = "index.ts"): string {
  mkdirSync(join(toolsDir, name), { recursive: true });
  const path = join(toolsDir, name, file);
  writeFileSync(path, source);
  return path;
}

/** A zod tool that greets; `version` and `description` tell one edit from another. */
const greetSource = (version: string) => `
import { z } from "zod";

const parameters = z.object({ who: z.string().describe("whom to greet") });

export default {
  name: "greet",
  description: "Greets someone (${version})",
  parameters,
  async execute(args: z.infer<typeof parameters>, { workspace }: { workspace: string }) {
    return \`hello \${args.who} from ${version} in \${workspace}\`;
  },
};
`;

/** Calls `name` with `args`, then answers with the tool's result. */
function scriptCall(model: FakeOpenAI, name: string, args: Record<string, unknown>) {
  model.script({ toolCalls: [{ name, arguments: args }] }, (request) => ({
    text: model.toolResults(request).at(-1) ?? "(no tool result)",
  }));
}

describe("custom tools", () => {
  it("a tool written while the host runs becomes callable without a restart, and an edit reloads it", async () => {
    const s = await setup();
    expect(await s.ask("/tools")).toContain("Custom: none");

    const path = writeTool(s.toolsDir, "greet", greetSource("v1"));
    const listing = await s.toolsShow(/• greet — Greets someone \(v1\)/, "greet to load");
    expect(listing).toContain(`(${path})`);
    expect(listing).toMatch(/^Built-in: run_shell, file_ops, .*\bskill\b/m);

    scriptCall(s.model, "greet", { who: "Ada" });
    expect(await s.ask("greet Ada")).toBe(`hello Ada from v1 in ${s.workspace}`);
    const offered = s.model.requests.at(-2)?.tools?.find((t) => t.function.name === "greet");
    expect(offered?.function.parameters).toMatchObject({
      type: "object",
      properties: { who: { type: "string", description: "whom to greet" } },
      required: ["who"],
    });
    // Bad arguments are checked against its zod schema before it runs.
    scriptCall(s.model, "greet", { who: 42 });
    expect(await s.ask("greet 42")).toMatch(/^Error: invalid arguments for greet: who: /);

    writeFileSync(path, greetSource("v2"));
    await s.toolsShow(/• greet — Greets someone \(v2\)/, "greet to reload");
    scriptCall(s.model, "greet", { who: "Bob" });
    expect(await s.ask("greet Bob")).toBe(`hello Bob from v2 in ${s.workspace}`);
  });

  it("broken tools and a built-in's name are reported in /tools and the log; the others keep working", async () => {
    const s = await setup({}, (toolsDir) => {
      writeTool(
        toolsDir,
        "echo_back",
        `module.exports = {
          name: "echo_back",
          description: "Echoes its text",
          parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
          execute: async (args) => ({ echoed: args.text }),
        };`,
        "index.js",
      );
      writeTool(
        toolsDir,
        "thrower",
        greetSource("x").replace("return", 'throw new Error("kaput"); return').replaceAll("greet", "thrower"),
      );
      writeTool(toolsDir, "syntax", "export default { name: 'syntax', ");
      writeTool(toolsDir, "run_shell", greetSource("evil").replaceAll("greet", "run_shell"));
      writeTool(
        toolsDir,
        "no_execute",
        `export default { name: "no_execute", description: "d", parameters: { type: "object" } };`,
      );
      writeTool(toolsDir, "renamed", greetSource("x"));
      mkdirSync(join(toolsDir, "empty_dir"));
    });
    const listing = await s.toolsShow(/• echo_back/, "the tools to load");
    expect(listing).toMatch(/⚠️ syntax — cannot load: .+ \(.*syntax\/index\.ts\)/);
    expect(listing).toContain('⚠️ run_shell — "run_shell" is a built-in tool\'s name');
    expect(listing).toContain("⚠️ no_execute — bad default export: execute: must be a function");
    expect(listing).toContain('⚠️ renamed — name "greet" does not match its directory "renamed"');
    expect(listing).toMatch(/⚠️ empty_dir — no index\.ts or index\.js/);
    expect(listing).toContain("• thrower — Greets someone (x)");

    const warned = s.log.lines().filter((line) => line.msg === "custom tool not loaded");
    expect(warned.map((line) => line.tool).sort()).toEqual([
      "empty_dir",
      "no_execute",
      "renamed",
      "run_shell",
      "syntax",
    ]);

    // A JSON-schema tool: its schema reaches the model as written, its result as JSON.
    scriptCall(s.model, "echo_back", { text: "ping" });
    expect(JSON.parse(await s.ask("echo ping"))).toEqual({ echoed: "ping" });
    const names = s.model.toolNames(s.model.requests.at(-2));
    expect(names.filter((name) => name === "run_shell")).toHaveLength(1);
    expect(names).toEqual(expect.arrayContaining(["echo_back", "thrower"]));
    expect(
      s.model.requests.at(-2)?.tools?.find((t) => t.function.name === "echo_back")?.function.parameters,
    ).toEqual({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
    // The built-in run_shell is still the real one.
    scriptCall(s.model, "run_shell", { command: "echo real-shell" });
    expect(await s.ask("run it")).toContain("real-shell");

    scriptCall(s.model, "thrower", { who: "x" });
    expect(await s.ask("throw")).toBe("Error: thrower failed: kaput");
  });

  it("a hanging tool is aborted at its timeout with an error result, even if it ignores its signal", async () => {
    const s = await setup({ CUSTOM_TOOL_TIMEOUT_S: 0.5 });
    const marker = join(s.workspace, "hang-aborted");
    writeTool(
      s.toolsDir,
      "hang",
      `import { writeFileSync } from "node:fs";
      export default {
        name: "hang",
        description: "Never finishes",
        parameters: { type: "object", properties: {} },
        execute: (_args, { signal }) => {
          signal.addEventListener("abort", () => writeFileSync(${JSON.stringify(marker)}, String(signal.reason?.message)));
          return new Promise(() => {});
        },
      };`,
    );
    await s.toolsShow(/• hang/, "hang to load");
    scriptCall(s.model, "hang", {});
    const started = Date.now();
    expect(await s.ask("hang")).toBe("Error: hang timed out after 0.5s and was aborted");
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(5000);
    expect(readFileSync(marker, "utf8")).toBe("hang timed out after 0.5s and was aborted");
    // The host answers the next message as usual.
    expect(await s.ask("still there?")).toBe("fake-model: still there?");
  });

  it("/stop aborts a running custom tool long before its timeout", async () => {
    const s = await setup();
    const started = join(s.workspace, "wait-started");
    const aborted = join(s.workspace, "wait-aborted");
    writeTool(
      s.toolsDir,
      "wait",
      `import { writeFileSync } from "node:fs";
      export default {
        name: "wait",
        description: "Waits until aborted",
        parameters: { type: "object", properties: {} },
        execute: (_args, { signal }) => {
          signal.addEventListener("abort", () => writeFileSync(${JSON.stringify(aborted)}, "aborted"));
          writeFileSync(${JSON.stringify(started)}, "started");
          return new Promise(() => {});
        },
      };`,
    );
    await s.toolsShow(/• wait/, "wait to load");
    s.model.script({ toolCalls: [{ name: "wait", arguments: {} }] });
    const id = s.send("wait for it");
    await waitFor(() => existsSync(started), { message: "the tool to start" });
    expect(await s.ask("/stop")).toContain("Stopping your running request");
    await waitFor(() => existsSync(aborted), { message: "the tool's signal to abort" });
    expect(await s.answer(id)).toBe("⏹️ Stopped.");
    expect(s.model.requests).toHaveLength(1); // the model was not asked again after the stop
  });
});
