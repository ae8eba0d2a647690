import {
  feishuConversation,
  startFakeDiscord,
  startFakeFeishu,
  startFakeSlack,
  waitFor,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { fakeTelegram, scope, startHost, startRouter, telegramChat } from "./telegram-e2e-support.ts";

// Telegram, Feishu, Slack and Discord on one real `phonework router` at once, each through its real
// SDK against its fake, and one real host serving a user of each. Ann uses both Slack and Discord:
// both reach the same node, and each answer goes back only to the platform it was asked on. The
// design's checklist runs on every platform together: a command answered, /nodes naming the node,
// the node's drop and return told on each, and messages flowing again after it.

const FEISHU_USER = "ou_fei";
const FEISHU_CHAT = "oc_fei";

describe("four platforms on one router", () => {
  it("each is answered on its own platform only; one user on Slack and Discord reaches the same node; a node's drop and return are told everywhere", {
    timeout: 120_000,
  }, async () => {
    const telegram = await fakeTelegram();
    const feishu = await startFakeFeishu();
    scope.add(() => feishu.close());
    const slack = await startFakeSlack({ ackTimeoutMs: 5_000 });
    scope.add(() => slack.close());
    const discord = await startFakeDiscord();
    scope.add(() => discord.close());

    const tom = telegram.user({ first_name: "Tom" });
    const annOnSlack = slack.user({ name: "ann" });
    const annOnDiscord = discord.user({ username: "ann" });
    const users = [
      `telegram:${tom.id}`,
      `feishu:${FEISHU_USER}`,
      `slack:${annOnSlack.id}`,
      `discord:${annOnDiscord.id}`,
    ].join(",");
    const router = await startRouter(telegram, {
      ALLOWED_USERS: users,
      FEISHU_APP_ID: feishu.appId,
      FEISHU_APP_SECRET: feishu.appSecret,
      FEISHU_DOMAIN: feishu.url,
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      DISCORD_BOT_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
    });
    const host = await startHost(router, "box", { SERVES_USERS: users });
    await feishu.waitForWsConnection();

    const tg = telegramChat(telegram, tom);
    const fei = feishuConversation(feishu, FEISHU_USER, FEISHU_CHAT);
    const slackDm = slack.dm(annOnSlack);
    const discordDm = discord.dm(annOnDiscord).id;
    const ask = {
      telegram: async (text: string, expected: RegExp) => {
        const after = tg.lastId();
        tg.send(text);
        return (await tg.waitForBot(expected, after)).text ?? "";
      },
      feishu: (text: string, expected: RegExp) => fei.say(text, expected, 30_000),
      slack: async (text: string, expected: RegExp) => {
        slack.sendMessage({ user: annOnSlack.id, text });
        return (await slack.waitForBot(slackDm, expected, 30_000)).text;
      },
      discord: async (text: string, expected: RegExp) => {
        discord.sendMessage({ from: annOnDiscord, content: text });
        return (await discord.waitForBot(discordDm, expected, 30_000)).content;
      },
    };
    const platforms = Object.keys(ask) as Array<keyof typeof ask>;

    // A command from each platform, all at once: each answered, once, where it was asked.
    await Promise.all(platforms.map((p) => ask[p](`/shell echo hi-from-${p}`, new RegExp(`hi-from-${p}`))));
    const seen = {
      telegram: tg.botMessages().map((m) => m.text ?? ""),
      feishu: fei.texts(),
      slack: slack.botMessages(slackDm).map((m) => m.text),
      discord: discord
        .transcript(discordDm)
        .filter((m) => m.from === "bot")
        .map((m) => m.content),
    };
    for (const p of platforms)
      for (const other of platforms) {
        const count = seen[p].filter((text) => text.includes(`hi-from-${other}`)).length;
        expect(count, `hi-from-${other} seen on ${p}`).toBe(p === other ? 1 : 0);
      }

    // Ann, on Slack and on Discord, reaches the same node.
    expect(await ask.slack("/nodes", /box/)).toMatch(/box/);
    expect(await ask.discord("/nodes", /box/)).toMatch(/box/);

    // The node drops: everyone who uses it is told, on their own platform; it comes back, the same.
    host.host.kill("SIGKILL");
    await host.host.exited;
    const gone = /Node "box" disconnected/;
    await Promise.all([
      tg.waitForBot(gone),
      waitFor(() => fei.texts().find((t) => gone.test(t)), { message: "the drop told on Feishu" }),
      slack.waitForBot(slackDm, gone),
      discord.waitForBot(discordDm, gone),
    ]);
    await startHost(router, "box", { SERVES_USERS: users });
    const back = /Node "box" reconnected/;
    await Promise.all([
      tg.waitForBot(back),
      waitFor(() => fei.texts().find((t) => back.test(t)), { message: "the return told on Feishu" }),
      slack.waitForBot(slackDm, back),
      discord.waitForBot(discordDm, back),
    ]);
    await Promise.all(platforms.map((p) => ask[p](`/shell echo again-${p}`, new RegExp(`again-${p}`))));
  });
});
