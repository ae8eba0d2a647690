import { createHmac } from "node:crypto";
import { fcParams } from "@phonework/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BASIC_DIALECTS, renderForPlatform } from "../src/chat/render/render-for-platform.ts";
import { renderSlackMrkdwn } from "../src/chat/render/slack-mrkdwn.ts";
import { adapterSpecs } from "../src/config/adapter-specs.ts";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import {
  readEventCallback,
  readInteraction,
  readSlashCommand,
} from "../src/platforms/slack/incoming-event.ts";
import { threadOf, threadRootOf, tsOf } from "../src/platforms/slack/message-ids.ts";
import { slackWebhookVerifier } from "../src/platforms/slack/webhook-verifier.ts";

// Slack's pure parts: mrkdwn rendering, payloads read into the contract's messages, the v0
// signature check, message ids that carry their thread, and the SLACK_* / `type: slack` config.

describe("mrkdwn", () => {
  it("converts bold, italic, strike, links, headings and lists; escapes &, < and > everywhere", () => {
    expect(renderSlackMrkdwn("**bold** and *it* and ~~gone~~ and [link](https://x.y/?a=1&b=2)")).toBe(
      "*bold* and _it_ and ~gone~ and <https://x.y/?a=1&amp;b=2|link>",
    );
    expect(renderSlackMrkdwn("# Title\n- one\n  * two\n> quoted <b>\n---")).toBe(
      "*Title*\n• one\n  • two\n> quoted &lt;b&gt;\n———",
    );
    expect(renderSlackMrkdwn("a < b && <!channel> [x](javascript:alert(1))")).toBe(
      "a &lt; b &amp;&amp; &lt;!channel&gt; [x](javascript:alert(1))",
    );
    expect(renderSlackMrkdwn("snake_case_name and 2 * 3 * 4")).toBe("snake_case_name and 2 * 3 * 4");
  });

  it("keeps code as written (escaped), drops the info string, closes an unclosed block", () => {
    expect(renderSlackMrkdwn("run `a **b** <c>` now\n```ts\nif (a < b) **x**\n```\n")).toBe(
      "run `a **b** &lt;c&gt;` now\n```\nif (a &lt; b) **x**\n```\n",
    );
    expect(renderSlackMrkdwn("```\nopen <forever>")).toBe("```\nopen &lt;forever&gt;\n```");
    expect(renderSlackMrkdwn("   \n\n")).toBe("");
  });

  const fragment = fc.constantFrom(
    ..."ab xyz\n\n*_~`<>&[]()#->|\\!\"'/.1".split(""),
    "```",
    "```js\n",
    "**",
    "](https://e.x/",
    "<@U1>",
    "&amp;",
  );
  const markdown = fc.array(fragment, { maxLength: 120 }).map((parts) => parts.join(""));

  it("every piece: within the limit, fences balanced, no raw < or & outside the links it made", () => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: 64, max: 400 }), (text, limit) => {
        const pieces = renderForPlatform(
          text,
          { markdown: "slack-mrkdwn", maxMessageLength: limit },
          BASIC_DIALECTS,
        );
        for (const piece of pieces) {
          expect(piece.length).toBeLessThanOrEqual(limit);
          expect((piece.match(/^```$/gm) ?? []).length % 2).toBe(0);
          const outsideLinks = piece.replace(/<https:\/\/[^<>|\s]*(\|[^<>]*)?>/g, "");
          expect(outsideLinks).not.toMatch(/<|&(?!amp;|lt;|gt;)/);
        }
      }),
      fcParams({ numRuns: 300 }),
    );
  });
});

const bot = { userId: "UBOT", botId: "BBOT" };
const callback = (event: Record<string, unknown>) => ({ type: "event_callback", event_id: "Ev1", event });

describe("payloads read into messages", () => {
  it("a DM with a file; an edit, a join, the bot's own and another bot's message are ignored", () => {
    const read = readEventCallback(
      callback({
        type: "message",
        subtype: "file_share",
        channel: "D1",
        channel_type: "im",
        user: "U1",
        text: "see <https://x.y|this> &amp; <#C9|general>",
        ts: "1.000001",
        files: [
          {
            id: "F1",
            name: "../a\u0007.txt",
            mimetype: "text/plain",
            size: 3,
            url_private_download: "https://files.slack.com/F1",
          },
          { id: "F2", mode: "tombstone" },
        ],
      }),
      bot,
    );
    expect(read).toEqual({
      kind: "message",
      message: {
        id: "1.000001",
        channel: { id: "D1", type: "private" },
        sender: { id: "U1", isBot: false },
        text: "see this (https://x.y) & #general",
        attachments: [{ name: "a.txt", ref: "https://files.slack.com/F1", mimeType: "text/plain", size: 3 }],
        isMention: true,
        dedupeKeys: ["event:Ev1"],
      },
    });
    const base = { type: "message", channel: "C1", channel_type: "channel", ts: "1.2", text: "x" };
    const reasons = [
      { ...base, subtype: "message_changed", user: "U1" },
      { ...base, subtype: "channel_join", user: "U1" },
      { ...base, user: "UBOT" },
      { ...base, user: "U2", bot_id: "BOTHER" },
      { ...base, channel: undefined, user: "U1" },
    ].map((event) => {
      const result = readEventCallback(callback(event), bot);
      return result.kind === "ignore" ? result.reason : result.kind;
    });
    expect(reasons).toEqual([
      "message subtype message_changed",
      "message subtype channel_join",
      "the bot's own message",
      "message from a bot",
      "malformed message event",
    ]);
    expect(readEventCallback({ type: "event_callback" }, bot)).toEqual({
      kind: "ignore",
      reason: "not an event_callback",
    });
  });

  it("a channel message counts as addressed only when it mentions the bot; a thread reply names its thread", () => {
    const read = (text: string) =>
      readEventCallback(
        callback({
          type: "message",
          channel: "C1",
          channel_type: "channel",
          user: "U1",
          text,
          ts: "5.5",
          thread_ts: "4.4",
        }),
        bot,
      );
    expect(read("hi all")).toMatchObject({ message: { isMention: false, id: "4.4/5.5", replyTo: "4.4" } });
    expect(read("hi <@UBOT|pw> there")).toMatchObject({ message: { isMention: true, text: "hi  there" } });
  });

  it("slash commands become PhoneWork text; presses carry their value, over-long values are not ours", () => {
    const slash = (command: string, text: string) =>
      readSlashCommand({ command, text, user_id: "U1", channel_id: "C1", trigger_id: "t1" }, "/pw");
    expect(slash("/pw", "approve 12")).toMatchObject({
      message: { text: "/approve 12", channel: { type: "group" } },
    });
    expect(slash("/pw", "  ")).toMatchObject({ message: { text: "/help" } });
    expect(slash("/deny", "3")).toMatchObject({ message: { text: "/deny 3", dedupeKeys: ["slash:t1"] } });
    expect(slash("not a command", "")).toEqual({ kind: "ignore", reason: "malformed slash command" });
    const press = (value: string) =>
      readInteraction({
        type: "block_actions",
        user: { id: "U1" },
        channel: { id: "D1" },
        message: { ts: "9.9" },
        actions: [{ value }],
      });
    expect(press("b:1")).toMatchObject({
      kind: "button",
      press: { data: "b:1", messageId: "9.9", channel: { type: "private" } },
    });
    expect(press("x".repeat(65))).toEqual({ kind: "ignore", reason: "button value over 64 bytes" });
  });

  it("message ids carry their thread", () => {
    expect([tsOf("1.2"), threadOf("1.2"), threadRootOf("1.2")]).toEqual(["1.2", undefined, "1.2"]);
    expect([tsOf("1.2/3.4"), threadOf("1.2/3.4"), threadRootOf("1.2/3.4")]).toEqual(["3.4", "1.2", "1.2"]);
    expect(() => tsOf("slash-t1")).toThrow(/not a Slack message id/);
  });
});

describe("v0 signatures", () => {
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  const verifier = slackWebhookVerifier(secret);
  const sign = (body: string, timestamp: string, key = secret) =>
    `v0=${createHmac("sha256", key).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  const request = (body: string, headers: Record<string, string>, type = "application/json") => ({
    rawBody: body,
    headers: { "content-type": type, ...headers },
  });
  const body = JSON.stringify({ type: "event_callback", event_id: "Ev9", event: { type: "message" } });

  it("a valid signature passes with its signed time and event id; url_verification is answered", () => {
    expect(
      verifier.verify(
        request(body, {
          "x-slack-request-timestamp": "1700000000",
          "x-slack-signature": sign(body, "1700000000"),
        }),
      ),
    ).toMatchObject({
      kind: "event",
      signedAtMs: 1_700_000_000_000,
      ids: ["slack:event:Ev9"],
      event: { kind: "events_api" },
    });
    const challenge = JSON.stringify({ type: "url_verification", challenge: "c-123" });
    expect(
      verifier.verify(
        request(challenge, { "x-slack-request-timestamp": "1", "x-slack-signature": sign(challenge, "1") }),
      ),
    ).toEqual({
      kind: "handshake",
      response: { status: 200, body: { challenge: "c-123" } },
    });
    const form = new URLSearchParams({
      command: "/pw",
      text: "nodes",
      user_id: "U1",
      channel_id: "D1",
      trigger_id: "t",
    }).toString();
    expect(
      verifier.verify(
        request(
          form,
          { "x-slack-request-timestamp": "2", "x-slack-signature": sign(form, "2") },
          "application/x-www-form-urlencoded",
        ),
      ),
    ).toMatchObject({
      kind: "event",
      event: { kind: "slash_commands", payload: { command: "/pw", text: "nodes" } },
      ids: ["slack:slash:t"],
    });
  });

  it("refuses a wrong secret, a changed body or time, and missing or repeated headers", () => {
    const t = "1700000000";
    const headerSets: Array<Record<string, string>> = [
      { "x-slack-request-timestamp": t, "x-slack-signature": sign(body, t, "another-secret") },
      { "x-slack-request-timestamp": "1700000001", "x-slack-signature": sign(body, t) },
      { "x-slack-request-timestamp": t },
      { "x-slack-signature": sign(body, t) },
      { "x-slack-request-timestamp": "soon", "x-slack-signature": sign(body, "soon") },
    ];
    const reasons = headerSets.map((headers) => verifier.verify(request(body, headers)));
    expect(reasons.map((r) => (r.kind === "rejected" ? `${r.status} ${r.reason}` : r.kind))).toEqual([
      "401 bad signature",
      "401 bad signature",
      "401 missing X-Slack-Signature",
      "401 missing or malformed X-Slack-Request-Timestamp",
      "401 missing or malformed X-Slack-Request-Timestamp",
    ]);
    // Signed, but not a delivery the app reads: 400, nothing handed on.
    const malformed = [
      ["{not json", "application/json"],
      [JSON.stringify({ type: "app_rate_limited" }), "application/json"],
      ["text=hi", "application/x-www-form-urlencoded"],
      ["payload=%7Bbroken", "application/x-www-form-urlencoded"],
    ].map(([raw = "", type]) =>
      verifier.verify(
        request(raw, { "x-slack-request-timestamp": t, "x-slack-signature": sign(raw, t) }, type),
      ),
    );
    expect(malformed.map((r) => (r.kind === "rejected" ? r.status : r.kind))).toEqual([400, 400, 400, 400]);
    const tampered = body.replace("Ev9", "Ev8");
    expect(
      verifier.verify(
        request(tampered, { "x-slack-request-timestamp": t, "x-slack-signature": sign(body, t) }),
      ),
    ).toMatchObject({ kind: "rejected", status: 401 });
    expect(
      verifier.verify({
        rawBody: body,
        headers: { "x-slack-request-timestamp": t, "x-slack-signature": [sign(body, t), sign(body, t)] },
      }),
    ).toMatchObject({ kind: "rejected", reason: "missing X-Slack-Signature" });
  });
});

describe("config", () => {
  const token = "xoxb-1000000001-2000000002-abcdef";
  const problems = (keys: Record<string, unknown>) =>
    (RouterConfigSchema.safeParse(keys).error?.issues ?? []).map(
      (issue) => `${issue.path.join(".")}: ${issue.message}`,
    );

  it("SLACK_BOT_TOKEN makes an adapter named slack (socket mode by default)", () => {
    expect(
      adapterSpecs(
        RouterConfigSchema.parse({
          SLACK_BOT_TOKEN: token,
          SLACK_APP_TOKEN: "xapp-1-A-1-x",
          ALLOWED_USERS: "U1",
        }),
      ),
    ).toEqual([
      {
        name: "slack",
        type: "slack",
        settings: { botToken: token, mode: "socket", appToken: "xapp-1-A-1-x" },
        access: { admins: ["slack:U1"], dm: ["slack:U1"] },
      },
    ]);
  });

  it("refuses to start without the app token (socket) or the signing secret (http), naming the key; a malformed token", () => {
    expect(problems({ SLACK_BOT_TOKEN: token })).toEqual([
      expect.stringMatching(/^SLACK_APP_TOKEN: is required with SLACK_MODE=socket/),
    ]);
    expect(problems({ SLACK_BOT_TOKEN: token, SLACK_MODE: "http" })).toEqual([
      expect.stringMatching(/^SLACK_SIGNING_SECRET: is required with SLACK_MODE=http/),
    ]);
    expect(problems({ SLACK_BOT_TOKEN: "xoxp-user-token", SLACK_APP_TOKEN: "xapp-1" })).toEqual([
      expect.stringMatching(/^SLACK_BOT_TOKEN: must be the app's bot token \(xoxb-/),
    ]);
  });

  it("workspaces as named adapters; the same bot twice is refused", () => {
    const adapters = {
      "slack-acme": { type: "slack", bot_token: token, app_token: "xapp-1-A-1-x", admins: ["U123"] },
      "slack-home": {
        type: "slack",
        bot_token: "xoxb-5-6-zz",
        mode: "http",
        signing_secret: "s3cret",
        dm: "everyone",
      },
    };
    expect(
      adapterSpecs(RouterConfigSchema.parse({ adapters })).map((s) => [s.name, s.settings.mode, s.access]),
    ).toEqual([
      ["slack-acme", "socket", { admins: ["slack-acme:U123"], dm: "none" }],
      ["slack-home", "http", { admins: [], dm: "everyone" }],
    ]);
    expect(problems({ adapters: { w: { type: "slack", bot_token: token, mode: "http" } } })).toEqual([
      expect.stringMatching(/^adapters\.w\.signing_secret: is required with mode http/),
    ]);
    const twice = {
      SLACK_BOT_TOKEN: `${token}-new`,
      SLACK_APP_TOKEN: "xapp-1-A",
      adapters: { "slack-acme": adapters["slack-acme"] },
    };
    expect(() => adapterSpecs(RouterConfigSchema.parse(twice))).toThrow(
      /adapters\.slack-acme\.bot_token: is the same slack app as SLACK_BOT_TOKEN: one adapter per bot/,
    );
  });
});
