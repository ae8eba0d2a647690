import type { TranscriptEntry } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { startAliceWithModel } from "./telegram-e2e-support.ts";

// A turn's main message and its details on Telegram, through a real router and host: the host's
// assistant (a fake model scripting two tool calls and its token usage) sends each call, its
// result and the turn's usage; the router puts them as replies under the turn's main message,
// inline in it, or nowhere, by the chat's /details. One world for the whole file.

/** Two shell calls, then the answer; 1.3k tokens in and 360 out over the turn. */
const twoToolCalls = (answer: string) => [
  {
    toolCalls: [
      { name: "run_shell", arguments: { command: "echo one" } },
      { name: "run_shell", arguments: { command: "echo two" } },
    ],
    usage: { prompt_tokens: 1200, completion_tokens: 340 },
  },
  { text: answer, usage: { prompt_tokens: 100, completion_tokens: 20 } },
];

describe("Telegram: a turn's main message and its details", () => {
  it("thread (the default): details are replies to the main message, usage included, the answer last; /details inline puts them in it; /details off leaves them out", async () => {
    const { model, chat } = await startAliceWithModel();

    /** Sends `text` as a turn answered with `answer`; resolves with the bot's messages of that turn. */
    const turn = async (text: string, answer: string) => {
      model.script(...twoToolCalls(answer));
      const asked = chat.send(text).message?.message_id ?? 0;
      const shown = await chat.waitForBot(new RegExp(`^${answer}$`), asked);
      const mine = chat.botMessages().filter((m) => m.message_id > asked);
      expect(mine.at(-1)?.message_id).toBe(shown.message_id); // the answer is the last message
      expect(shown.replyTo).toBe(asked);
      return { main: mine[0] as TranscriptEntry, mine, shown };
    };

    // thread: the main message shows the status and is marked done; details reply to it.
    const thread = await turn("list things", "all done");
    const { main } = thread;
    expect(main.replyTo).toBeUndefined();
    expect(main.text).toMatch(/^… running: echo one\n… running: echo two\n✅ done$/);
    const details = thread.mine.filter((m) => m.replyTo === main.message_id);
    expect(details.length).toBeGreaterThanOrEqual(1);
    expect(details.length).toBeLessThanOrEqual(9);
    expect(thread.mine.slice(1, -1)).toEqual(details); // between the main message and the answer
    const threadText = details.map((m) => m.text).join("\n");
    expect(threadText).toMatch(
      /🔧 run_shell: .*echo one[\s\S]*\bone\b[\s\S]*🔧 run_shell: .*echo two[\s\S]*\btwo\b/,
    );
    expect(threadText).toContain("📊 1.3k in · 360 out · $0.0004");
    expect(threadText.indexOf("📊")).toBeGreaterThan(threadText.lastIndexOf("🔧"));

    // /details alone: the setting, and the other choices as buttons.
    const asked = chat.send("/details").message?.message_id ?? 0;
    const setting = await chat.waitForBot(/^Details in this chat: under the turn's message/, asked);
    expect(setting.keyboard?.flat().map((b) => b.text)).toEqual(["inline", "off"]);

    // inline: the results' first lines and the usage are lines of the main message; nothing replies to it.
    await chat.waitForBot(
      /^✅ Details in this chat: as lines/,
      chat.send("/details inline").message?.message_id,
    );
    const inline = await turn("list again", "done inline");
    expect(inline.mine).toHaveLength(2);
    expect(inline.main.text).toMatch(
      /^… running: echo one\n↳ exit code 0\n… running: echo two\n↳ exit code 0\n📊 1.3k in · 360 out · \$0\.0004\n✅ done$/,
    );

    // off: status and answer only, and the host was not asked for details.
    await chat.waitForBot(
      /^✅ Details in this chat: not shown/,
      chat.send("/details off").message?.message_id,
    );
    const off = await turn("list once more", "done quietly");
    expect(off.mine).toHaveLength(2);
    expect(off.main.text).toBe("… running: echo one\n… running: echo two\n✅ done");
  });
});
