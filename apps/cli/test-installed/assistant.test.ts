import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeOpenAI, startFakeMcp, startFakeOpenAI } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { phonework, scope } from "./support.ts";

// What the assistant loads on first use, as the package ships it (a missing chunk or package would
// only show here): the OpenAI and MCP clients, bundled into chunks of their own; jiti, which loads
// the workspace's custom tools, and yaml, which reads skills' front matter, installed packages;
// the channel log's thread, a second entry of the bundle (jsonl-thread.js).

describe("the assistant, installed", () => {
  it("a question answered with the web tool: the model by the OpenAI SDK, the search by the MCP client", async () => {
    const model = await startFakeOpenAI({ apiKey: "sk-installed" });
    scope.add(() => model.close());
    const mcp = await startFakeMcp({ apiKey: "mk-installed" });
    scope.add(() => mcp.close());
    model.script(
      { toolCalls: [{ name: "web", arguments: { action: "search", query: "bundled sdk" } }] },
      (request: Parameters<FakeOpenAI["toolResults"]>[0]) => ({
        text: `found:\n${model.toolResults(request).at(-1)}`,
      }),
    );
    const dir = scope.tempDir();
    const standalone = phonework(["standalone", "--data-dir", join(dir, "data"), "--working-dir", dir], {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-installed",
      METASO_API_KEY: "mk-installed",
      METASO_MCP_URL: mcp.url,
    });
    standalone.writeLine("search the web for bundled sdk");
    standalone.endInput();
    expect(await standalone.exited, standalone.stderr()).toEqual({ code: 0, signal: null });
    expect(standalone.stdout()).toContain("found:\n1. Result for bundled sdk");
    expect(mcp.calls).toEqual([
      { name: "metaso_web_search", arguments: expect.objectContaining({ q: "bundled sdk" }) },
    ]);
    expect(model.requests).toHaveLength(2);
  });

  it("a workspace's TypeScript tool loads with jiti and its skill's front matter with yaml; the chat is logged by the log's thread", async () => {
    const dir = scope.tempDir();
    const workspace = join(dir, "workspace");
    mkdirSync(join(workspace, "tools", "shout"), { recursive: true });
    writeFileSync(
      join(workspace, "tools", "shout", "index.ts"),
      [
        'import { z } from "zod";',
        "const parameters = z.object({ text: z.string() });",
        "export default {",
        '  name: "shout",',
        '  description: "says it louder",',
        "  parameters,",
        "  execute: ({ text }: z.infer<typeof parameters>): string => text.toUpperCase(),",
        "};",
      ].join("\n"),
    );
    mkdirSync(join(workspace, "skills", "release"), { recursive: true });
    writeFileSync(
      join(workspace, "skills", "release", "SKILL.md"),
      "---\nname: release\ndescription: how we cut a release\n---\nTag it.\n",
    );
    const standalone = phonework(["standalone", "--data-dir", join(dir, "data"), "--working-dir", dir], {
      WORKSPACE_DIR: workspace,
      CHANNEL_LOG_THREAD_AT: "0", // the thread from the first line (a quiet host writes on the main thread)
    });
    standalone.writeLine("/tools");
    standalone.writeLine("/skills");
    standalone.endInput();
    expect(await standalone.exited, standalone.stderr()).toEqual({ code: 0, signal: null });
    expect(standalone.stdout()).toContain("• shout — says it louder");
    expect(standalone.stdout()).toContain("• release — how we cut a release");
    // Both messages and both answers in the chat's log.jsonl, written by the thread (not on the
    // main thread after it failed to start) and all there once the standalone has stopped.
    const channels = join(workspace, "channels");
    const [adapter] = readdirSync(channels);
    const [chat] = readdirSync(join(channels, adapter ?? ""));
    const log = readFileSync(join(channels, adapter ?? "", chat ?? "", "log.jsonl"), "utf8");
    const lines = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { text: string; sender: { isBot: boolean } });
    expect(lines.filter((line) => !line.sender.isBot).map((line) => line.text)).toEqual([
      "/tools",
      "/skills",
    ]);
    expect(lines.filter((line) => line.sender.isBot)).toHaveLength(2);
    expect(log).toContain("shout — says it louder");
    expect(standalone.stdout() + standalone.stderr()).not.toContain("channel log's thread");
  });
});
