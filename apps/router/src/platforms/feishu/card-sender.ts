import type { Logger } from "@phonework/runtime";
import { BoundedMap } from "../../storage/bounded-map.ts";
import { textContent } from "./card.ts";
import type { FeishuApi, Recipient } from "./feishu-api.ts";
import { type FeishuError, toFeishuError } from "./feishu-error.ts";

// Cards out, with the fallbacks that keep an answer from being lost: a card Feishu refuses for its
// content goes as plain text (its buttons' commands are in the text), and a reply Feishu refuses
// for good (the message was recalled, or threads are not allowed there) goes as a plain message.
// A message sent as text stays text (Feishu cannot patch it into a card): its edits replace its
// text, and it is remembered (the newest few hundred) so that they can.

/** What is logged of a failed call: Feishu's answer, never what was sent (see feishu-error.ts). */
export const failureLog = (failure: FeishuError) => ({
  status: failure.status,
  code: failure.code,
  err: failure.message,
  logId: failure.logId,
});

export class CardSender {
  private readonly sentAsText = new BoundedMap<string, true>(500);

  constructor(
    private readonly api: FeishuApi,
    private readonly logger: Logger,
  ) {}

  /** A card, or plain text if Feishu refuses the card for its content. */
  async send(to: Recipient, card: unknown, text: string, uuid: string): Promise<string> {
    try {
      return await this.api.send(to, "interactive", card, uuid);
    } catch (error) {
      const failure = toFeishuError(error);
      if (failure.retriable) throw failure;
      this.logger.warn(failureLog(failure), "card refused; sending as text");
      const messageId = await this.api.send(to, "text", textContent(text), `${uuid}-text`);
      this.sentAsText.set(messageId, true);
      return messageId;
    }
  }

  /** Edits a sent message: its card patched, or, for one that went out as text, its text replaced. */
  async edit(messageId: string, card: unknown, text: string): Promise<"card" | "text"> {
    if (!this.sentAsText.get(messageId)) {
      await this.api.patchCard(messageId, card);
      return "card";
    }
    await this.api.updateText(messageId, text);
    return "text";
  }

  /**
   * A card replying to `messageId` (in its thread with `inThread`); refused for good, a plain
   * message in the chat.
   */
  async reply(
    to: Recipient,
    messageId: string,
    message: { card: unknown; text: string; uuid: string; inThread: boolean },
  ): Promise<string> {
    const { card, text, uuid, inThread } = message;
    try {
      return await this.api.reply(messageId, "interactive", card, uuid, inThread);
    } catch (error) {
      const failure = toFeishuError(error);
      if (failure.retriable) throw failure;
      this.logger.warn(
        { ...failureLog(failure), messageId, inThread },
        "reply refused; sending as a plain message",
      );
      return this.send(to, card, text, `${uuid}-send`);
    }
  }
}
