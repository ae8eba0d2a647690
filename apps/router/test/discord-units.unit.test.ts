import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { renderDiscordMd } from "../src/chat/render/discord-md.ts";
import { renderForPlatform } from "../src/chat/render/render-for-platform.ts";
import { DISCORD_CAPABILITIES } from "../src/platforms/discord/discord-adapter.ts";
import { readDispatch, withoutBotMention } from "../src/platforms/discord/incoming-event.ts";
import { actionRows, nonceOf } from "../src/platforms/discord/outgoing.ts";
import { slashCommands } from "../src/platforms/discord/slash-commands.ts";

// The Discord adapter's pure parts: the markdown it is sent, gateway dispatches read into the
// contract's messages (hostile ones too), buttons and the command list as Discord takes them.

const bot = { id: "1200000000000000001" };
const user = { id: "1300000000000000002", username: "alice" };

describe("discord-md", () => {
  it("keeps CommonMark Discord shows as written; neutralises every mention outside code, never inside", () => {
    expect(renderDiscordMd("**bold** _it_ `code` [link](https://x.y)")).toBe(
      "**bold** _it_ `code` [link](https://x.y)",
    );
    expect(renderDiscordMd("hi @everyone, @here and <@123> <@&9> <#5>")).toBe(
      "hi @\u200beveryone, @\u200bhere and <\u200b@123> <\u200b@&9> <\u200b#5>",
    );
    expect(renderDiscordMd("`@everyone` stays\n```\n@here <@1>\n```")).toBe(
      "`@everyone` stays\n```\n@here <@1>\n```",
    );
  });

  it("escapes what Discord reads differently: spoilers, subtext, deep headings, images, ~~~ fences", () => {
    expect(renderDiscordMd("a || b")).toBe("a \\|\\| b");
    expect(renderDiscordMd("-# small")).toBe("\\-# small");
    expect(renderDiscordMd("#### Deep")).toBe("**Deep**");
    expect(renderDiscordMd("### Kept")).toBe("### Kept");
    expect(renderDiscordMd("![chart](https://x.y/c.png)")).toBe("[chart](https://x.y/c.png)");
    expect(renderDiscordMd("~~~py\nx = 1\n~~~")).toBe("```py\nx = 1\n```");
  });

  it("a long answer splits within 2,000, each part's fences balanced, no part pinging", () => {
    const code = Array.from({ length: 200 }, (_, i) => `line ${i} @everyone`).join("\n");
    const parts = renderForPlatform(
      `@here\n\n\`\`\`\n${code}\n\`\`\`\n\n${"word ".repeat(900)}`,
      DISCORD_CAPABILITIES,
    );
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(2000);
      expect((part.match(/^```/gm) ?? []).length % 2).toBe(0);
      expect(part.replace(/```[\s\S]*?```/g, "")).not.toMatch(/@(everyone|here)/);
    }
  });
});

describe("gateway dispatches", () => {
  const dm = (fields: Record<string, unknown>) =>
    readDispatch(
      "MESSAGE_CREATE",
      { id: "10", channel_id: "20", channel_type: 1, author: user, content: "hi", ...fields },
      bot,
    );

  it("a DM is a private message addressed to the bot; a guild message only when it mentions the bot, the mention cut", () => {
    expect(dm({})).toMatchObject({
      kind: "message",
      message: { id: "10", channel: { id: "20", type: "private" }, isMention: true, text: "hi" },
    });
    const guild = (content: string, mentions: unknown[] = []) =>
      readDispatch(
        "MESSAGE_CREATE",
        { id: "11", channel_id: "21", guild_id: "30", author: user, content, mentions },
        bot,
      );
    expect(guild("hello all")).toMatchObject({ message: { channel: { type: "group" }, isMention: false } });
    expect(guild(`<@${bot.id}> /status`, [{ id: bot.id }])).toMatchObject({
      message: { isMention: true, text: "/status" },
    });
    expect(guild(`<@!${bot.id}>   run   it`)).toMatchObject({ message: { isMention: true, text: "run it" } });
    expect(withoutBotMention(`a <@${bot.id}> b <@999>`, bot)).toBe("a b <@999>");
  });

  it("ignores the bot itself, other bots, webhooks, notices and malformed payloads; a sticker is unsupported", () => {
    expect(dm({ author: { id: bot.id, username: "me", bot: true } })).toEqual({
      kind: "ignore",
      reason: "the bot's own message",
    });
    expect(dm({ author: { ...user, bot: true } })).toMatchObject({ kind: "ignore" });
    expect(dm({ webhook_id: "5" })).toMatchObject({ kind: "ignore" });
    expect(dm({ type: 7 })).toMatchObject({ kind: "ignore" });
    expect(dm({ content: "", sticker_items: [{}] })).toMatchObject({ message: { unsupported: "sticker" } });
    expect(dm({ content: "" })).toMatchObject({ kind: "ignore", reason: "message without content" });
    for (const hostile of [null, "x", { id: "not-a-snowflake" }, { id: "1", channel_id: "2", author: {} }])
      expect(readDispatch("MESSAGE_CREATE", hostile, bot)).toMatchObject({ kind: "ignore" });
    expect(readDispatch("GUILD_CREATE", {}, bot)).toMatchObject({ kind: "ignore" });
  });

  it("interactions: a button's custom_id is the data (over 100 refused); a slash command is its text", () => {
    const base = { id: "40", application_id: "1", token: "tok", channel_id: "20", user };
    expect(
      readDispatch(
        "INTERACTION_CREATE",
        { ...base, type: 3, data: { custom_id: "b:1", component_type: 2 }, message: { id: "50" } },
        bot,
      ),
    ).toMatchObject({
      kind: "button",
      press: { data: "b:1", messageId: "50", channel: { type: "private" } },
      interaction: { id: "40", token: "tok" },
    });
    expect(
      readDispatch(
        "INTERACTION_CREATE",
        { ...base, type: 3, data: { custom_id: "x".repeat(101), component_type: 2 } },
        bot,
      ),
    ).toMatchObject({ kind: "ignore" });
    expect(
      readDispatch(
        "INTERACTION_CREATE",
        {
          ...base,
          type: 2,
          guild_id: "9",
          member: { user },
          user: undefined,
          data: { name: "new", options: [{ name: "args", type: 3, value: "proj codex" }] },
        },
        bot,
      ),
    ).toMatchObject({
      kind: "command",
      message: { id: "40", text: "/new proj codex", channel: { type: "group" }, isMention: true },
    });
    expect(
      readDispatch(
        "INTERACTION_CREATE",
        { ...base, type: 2, user: { ...user, bot: true }, data: { name: "x" } },
        bot,
      ),
    ).toMatchObject({ kind: "ignore" });
  });
});

describe("outgoing", () => {
  it("buttons fit Discord's 5 × 5 with labels ≤ 80; nonces are stable per key and ≤ 25 characters", () => {
    const rows = Array.from({ length: 7 }, (_, r) =>
      Array.from({ length: 7 }, (_, b) => ({ label: "L".repeat(90), data: `${r}:${b}` })),
    );
    const out = actionRows(rows);
    expect(out).toHaveLength(5);
    expect(out.every((row) => row.components.length === 5)).toBe(true);
    expect(out[0]?.components[0]).toEqual({
      type: 2,
      style: 2,
      label: `${"L".repeat(79)}…`,
      custom_id: "0:0",
    });
    expect(nonceOf("key-1")).toBe(nonceOf("key-1"));
    expect(nonceOf("key-1")).not.toBe(nonceOf("key-2"));
    expect(nonceOf("a".repeat(100)).length).toBeLessThanOrEqual(25);
  });

  it("slash commands keep the names Discord accepts, descriptions within 100", () => {
    const list = slashCommands(
      [
        { command: "shell", description: "Run a shell command" },
        { command: "forget-memory", description: "d".repeat(150) },
        { command: "Bad", description: "x" },
        { command: "empty", description: " " },
      ],
      createTestLogger().logger,
    );
    expect(list.map((c) => c.name)).toEqual(["shell", "forget-memory"]);
    expect(list[1]?.description).toHaveLength(100);
  });
});
