import { waitFor } from "../shared/wait-for.ts";
import { messageEvent } from "./events.ts";
import type { FakeFeishu } from "./types.ts";

// One person talking to the bot in one private chat of the fake Feishu: what the bot has sent
// there (cards read as their markdown), and `say`, which sends a message and waits for the reply.

export interface FeishuConversation {
  texts(): string[];
  say(text: string, expected: RegExp, timeoutMs?: number): Promise<string>;
}

export function feishuConversation(fake: FakeFeishu, openId: string, chatId: string): FeishuConversation {
  const texts = () =>
    fake
      .sent()
      .filter((m) => m.receive_id === chatId || m.chat_id === chatId)
      .map((m) => {
        const content = m.content as { text?: string; body?: { elements?: Array<{ content?: string }> } };
        return content.text ?? content.body?.elements?.map((e) => e.content ?? "").join("") ?? "";
      });
  return {
    texts,
    async say(text, expected, timeoutMs = 15_000) {
      const before = texts().length;
      await fake.pushEvent(messageEvent({ openId, chatId, chatType: "p2p", text }));
      return waitFor(
        () =>
          texts()
            .slice(before)
            .find((t) => expected.test(t)),
        { message: `reply to "${text}" matching ${expected}`, timeoutMs },
      );
    },
  };
}
