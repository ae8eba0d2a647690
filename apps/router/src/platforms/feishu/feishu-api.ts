import type * as lark from "@larksuiteoapi/node-sdk";
import { type FeishuAnswer, FeishuError, logIdOf } from "./feishu-error.ts";

// The few Open API calls PhoneWork makes, each returning what it needs or throwing a
// FeishuError (HTTP errors and non-zero Feishu codes alike).

export interface Recipient {
  receiveIdType: "chat_id" | "open_id";
  receiveId: string;
}

function check<T extends FeishuAnswer>(result: T, what: string): T {
  if (result.code !== undefined && result.code !== 0) {
    throw new FeishuError(
      `${what}: ${result.msg ?? "failed"} (code ${result.code})`,
      200,
      result.code,
      undefined,
      logIdOf(result),
    );
  }
  return result;
}

export class FeishuApi {
  constructor(private readonly client: lark.Client) {}

  async send(to: Recipient, msgType: string, content: unknown, uuid: string): Promise<string> {
    const result = check(
      await this.client.im.v1.message.create({
        params: { receive_id_type: to.receiveIdType },
        data: { receive_id: to.receiveId, msg_type: msgType, content: JSON.stringify(content), uuid },
      }),
      "send message",
    );
    const id = result.data?.message_id;
    if (!id) throw new FeishuError("send message: no message_id in the answer", 200, undefined, undefined);
    return id;
  }

  /**
   * Sends the message as a reply to `messageId`: a quote of it above, in the same chat; or, with
   * `inThread`, in the thread under it (the chat shows the main message with "N replies").
   */
  async reply(
    messageId: string,
    msgType: string,
    content: unknown,
    uuid: string,
    inThread = false,
  ): Promise<string> {
    const result = check(
      await this.client.im.v1.message.reply({
        path: { message_id: messageId },
        data: {
          msg_type: msgType,
          content: JSON.stringify(content),
          uuid,
          ...(inThread ? { reply_in_thread: true } : {}),
        },
      }),
      "reply to message",
    );
    const id = result.data?.message_id;
    if (!id)
      throw new FeishuError("reply to message: no message_id in the answer", 200, undefined, undefined);
    return id;
  }

  async patchCard(messageId: string, card: unknown): Promise<void> {
    check(
      await this.client.im.v1.message.patch({
        path: { message_id: messageId },
        data: { content: JSON.stringify(card) },
      }),
      "patch card",
    );
  }

  /** Replaces a text message's text (a message sent as text cannot become a card). */
  async updateText(messageId: string, text: string): Promise<void> {
    check(
      await this.client.im.v1.message.update({
        path: { message_id: messageId },
        data: { msg_type: "text", content: JSON.stringify({ text }) },
      }),
      "update message",
    );
  }

  async uploadImage(data: Buffer): Promise<string> {
    const result = (await this.client.im.v1.image.create({
      data: { image_type: "message", image: data },
    })) as { image_key?: string; data?: { image_key?: string }; code?: number; msg?: string } | null;
    const key = result?.image_key ?? result?.data?.image_key;
    if (!key)
      throw new FeishuError(`upload image: ${result?.msg ?? "no image_key"}`, 200, result?.code, undefined);
    return key;
  }

  async uploadFile(data: Buffer, fileName: string, fileType: string): Promise<string> {
    const result = (await this.client.im.v1.file.create({
      data: { file_type: fileType as "stream", file_name: fileName, file: data },
    })) as { file_key?: string; data?: { file_key?: string }; code?: number; msg?: string } | null;
    const key = result?.file_key ?? result?.data?.file_key;
    if (!key)
      throw new FeishuError(`upload file: ${result?.msg ?? "no file_key"}`, 200, result?.code, undefined);
    return key;
  }

  /** The bot's own open_id, to recognise @mentions of it in group chats. */
  async botOpenId(): Promise<string | undefined> {
    const result = (await this.client.request({ method: "GET", url: "/open-apis/bot/v3/info" })) as {
      bot?: { open_id?: string };
      data?: { bot?: { open_id?: string } };
    };
    return result?.bot?.open_id ?? result?.data?.bot?.open_id;
  }
}
