import { type FakeFeishu, messageEvent, startFakeFeishu, waitFor } from "@phonework/testkit";
import { beforeEach, describe, expect, it } from "vitest";
import { startFeishuRouter, textOf, withHost } from "./feishu-support.ts";
import { echoHandler, onCleanup, startTestHost, tempDataDir } from "./support.ts";

/** The fence around command output (the host marks it preformatted). */
const FENCE = "```";

// On Feishu an answer is a reply to the message it answers (POST …/messages/:id/reply); progress
// cards and notices are plain messages in the chat. Real SDK against the fake Feishu server.

let fake: FakeFeishu;
beforeEach(async () => {
  fake = await startFakeFeishu();
  onCleanup(() => fake.close());
});

const say = (text: string, messageId: string) =>
  fake.pushEvent(messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text, messageId }));
const inChat = () => fake.sent().filter((m) => m.chat_id === "oc_alice");
const replyCalls = () =>
  fake.calls.filter((c) => c.method === "POST" && c.path.endsWith("/reply")).map((c) => c.path);

describe("Feishu answers are replies", () => {
  it("the answer replies to the user's message; the progress card and a notice are plain messages", async () => {
    const { router } = await startFeishuRouter(fake);
    const handler = echoHandler("home-pc");
    const host = await withHost(router, "home-pc", handler);
    await say("slow", "om_question");
    await waitFor(() => inChat().some((m) => textOf(m).startsWith("… working on it")));
    handler.release();
    await waitFor(() => inChat().some((m) => textOf(m) === "home-pc: slow"));
    host.push({
      type: "notify",
      user_id: "feishu:ou_alice",
      platform: "feishu",
      chat_id: "feishu:oc_alice",
      text: "a notice",
    });
    await waitFor(() => inChat().some((m) => textOf(m) === "a notice"));
    expect(inChat().map((m) => [textOf(m), m.reply_to])).toEqual([
      ["… working on it", undefined],
      ["home-pc: slow", "om_question"],
      ["a notice", undefined],
    ]);
    expect(replyCalls()).toEqual(["/open-apis/im/v1/messages/om_question/reply"]);
  });

  it("six /shell echo N sent at once: six replies, in order, each to its own message", async () => {
    const { router } = await startFeishuRouter(fake);
    await startTestHost(router.nodeUrl, { WORKING_DIR: tempDataDir() }).ready();
    const numbers = [1, 2, 3, 4, 5, 6];
    await Promise.all(numbers.map((n) => say(`/shell echo ${n}`, `om_echo_${n}`)));
    await waitFor(() => inChat().length === numbers.length, { message: "six answers" });
    expect(inChat().map((m) => [textOf(m), m.reply_to])).toEqual(
      numbers.map((n) => [`$ echo ${n}\nexit code 0\nstdout:\n${FENCE}\n${n}\n${FENCE}`, `om_echo_${n}`]),
    );
  });

  it("a long answer: its first part is the reply, the other parts follow as plain messages", async () => {
    const { router } = await startFeishuRouter(fake);
    const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(15)}`).join(
      "\n\n",
    );
    await withHost(router, "home-pc", { handle: async () => long });
    await say("write a lot", "om_long");
    await waitFor(() => inChat().some((m) => /^\[(\d+)\/\1\]/.test(textOf(m))), { message: "the last part" });
    const parts = inChat();
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.map((m) => m.reply_to)).toEqual(["om_long", ...parts.slice(1).map(() => undefined)]);
  });

  it("a reply to a message recalled meanwhile falls back to a plain message in the chat", async () => {
    const { router } = await startFeishuRouter(fake);
    const handler = echoHandler("home-pc");
    await withHost(router, "home-pc", handler);
    await say("slow", "om_recalled");
    await waitFor(() => inChat().some((m) => textOf(m).startsWith("… working on it")));
    fake.recall("om_recalled");
    handler.release();
    await waitFor(() => inChat().some((m) => textOf(m) === "home-pc: slow"));
    const answer = inChat().find((m) => textOf(m) === "home-pc: slow");
    expect(answer).toMatchObject({ receive_id: "oc_alice", receive_id_type: "chat_id" });
    expect(answer?.reply_to).toBeUndefined();
    expect(replyCalls()).toContain("/open-apis/im/v1/messages/om_recalled/reply");
    expect(fake.message("om_recalled")?.recalled).toBe(true);
  });
});
