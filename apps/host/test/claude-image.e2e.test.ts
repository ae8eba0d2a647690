import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createTestLogger,
  type FakeAnthropic,
  imageFixture,
  imageHeader,
  makeTempDir,
  startFakeAnthropic,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClaudeAgent } from "../src/coding/claude-agent.ts";
import type { SessionRecord } from "../src/coding/session-store.ts";
import { DEFAULT_MAX_PIXELS, DEFAULT_MAX_SIDE, prepareImage } from "../src/images/prepare-image.ts";

// A coding session's image, as the real `claude` CLI sends it: the prompt goes on stdin as a
// stream-json user message, and the CLI passes its image block on to the (fake) Anthropic API.

const CLAUDE_BIN = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "claude");

let model: FakeAnthropic;
let dir: { path: string; remove: () => void };

beforeAll(async () => {
  model = await startFakeAnthropic();
  dir = makeTempDir();
  mkdirSync(join(dir.path, "home"));
  mkdirSync(join(dir.path, "demo"));
});
afterAll(async () => {
  await model.close();
  dir.remove();
});

describe("Claude Code and images", () => {
  it("a screenshot reaches the Anthropic API as a base64 image block beside the prompt", async () => {
    const screenshot = join(dir.path, "shot.png");
    writeFileSync(screenshot, imageFixture("screenshot.png"));
    const prepared = await prepareImage(screenshot, {
      maxSide: DEFAULT_MAX_SIDE,
      maxBytes: 3_750_000,
      maxPixels: DEFAULT_MAX_PIXELS,
    });
    if (!prepared.ok) throw new Error(prepared.reason);
    model.script({ text: "The file config.yaml is missing." });
    const agent = createClaudeAgent({
      bin: CLAUDE_BIN,
      permissionMode: "default",
      allowedTools: [],
      stopGraceMs: 2000,
      env: {
        ...process.env,
        HOME: join(dir.path, "home"),
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "sk-ant-test",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
      },
      logger: createTestLogger().logger,
    });
    const session = { id: "1", agent: "claude", cwd: join(dir.path, "demo") } as SessionRecord;
    const result = await agent.runTurn({
      session,
      prompt: `what does this error mean?\n[attached: ${screenshot}]`,
      images: [prepared.image],
      signal: new AbortController().signal,
      onProgress: () => {},
    });
    expect(result).toMatchObject({ ok: true, text: "The file config.yaml is missing." });
    const turn = model.agentRequests().at(-1);
    const blocks = turn?.messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content)) ?? [];
    const image = blocks.find((b) => b.type === "image") as
      | { source: { type: string; media_type: string; data: string } }
      | undefined;
    expect(image?.source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(imageHeader(Buffer.from(image?.source.data ?? "", "base64"))).toEqual({
      format: "png",
      width: 640,
      height: 360,
    });
    expect(model.userTexts(turn).join("\n")).toContain("what does this error mean?");
  }, 60_000);
});
