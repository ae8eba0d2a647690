import { describe, expect, it } from "vitest";
import { TurnWatcher } from "../src/coding/codex-turn-watcher.ts";

// The real Codex CLI sometimes repeats the previous turn's last token-usage report after that turn
// ended, before the next turn's id is known (seen in codex-sessions.e2e: four reports, three model
// calls, /usage counting 40 in where the model was asked three times). The next turn must not count it.

const report = (turnId: string, total: number) => ({
  turnId,
  tokenUsage: {
    total: { inputTokens: 10 * total, cachedInputTokens: 0, outputTokens: 5 * total },
    last: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 5 },
  },
});
const watcher = () =>
  new TurnWatcher(
    { userId: "u", chatId: "c", platform: "p", project: "demo" },
    new AbortController().signal,
    () => {},
    () => {},
  );

describe("a Codex turn's token usage", () => {
  it("ignores the previous turn's repeated report, before and after this turn has its id", () => {
    const second = watcher();
    second.previousTurnId = "turn-1";
    second.onNotification("thread/tokenUsage/updated", report("turn-1", 2)); // the repeat
    second.turnId = "turn-2";
    second.onNotification("thread/tokenUsage/updated", report("turn-1", 2)); // again, once known
    second.onNotification("thread/tokenUsage/updated", report("turn-2", 3));
    expect(second.usage.total("m")).toEqual({ model: "m", input: 10, cachedInput: 0, output: 5 });
  });

  it("counts a report that comes before the turn's id is known, when it is not the previous turn's", () => {
    const first = watcher();
    first.onNotification("thread/tokenUsage/updated", report("turn-1", 1));
    first.turnId = "turn-1";
    first.onNotification("thread/tokenUsage/updated", report("turn-1", 2));
    expect(first.usage.total("m")).toEqual({ model: "m", input: 20, cachedInput: 0, output: 10 });
  });
});
