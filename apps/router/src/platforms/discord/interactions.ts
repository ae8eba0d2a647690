import type { REST } from "@discordjs/rest";
import type { Logger } from "@phonework/runtime";
import { describeError, toPlatformError } from "./discord-error.ts";
import type { InteractionHandle } from "./incoming-event.ts";
import { type ActionRow, NO_MENTIONS } from "./outgoing.ts";

// Answering interactions. Discord wants an answer within 3 s and then takes follow-ups through the
// interaction's webhook for 15 minutes. A button press is answered at once with a deferred update
// (type 6: the message stays as it is), and the presser then sees the shared layer's short text
// as an ephemeral follow-up. A slash command is stored first, then answered with a deferred
// message (type 5: "thinking…"); the first message the bot sends that user in that channel fills
// that placeholder (PATCH …/messages/@original), so the answer shows under the command. A
// placeholder nobody filled is deleted before its token expires.

const DEFERRED_CHANNEL_MESSAGE = 5;
const DEFERRED_UPDATE_MESSAGE = 6;
const CHANNEL_MESSAGE = 4;
const EPHEMERAL = 64;
/** A placeholder left unfilled this long is removed (the token lasts 15 minutes). */
const PLACEHOLDER_TTL_MS = 14 * 60_000;
/** Follow-ups are at most 2,000 characters. */
const MAX_CONTENT = 2_000;

interface Placeholder {
  handle: InteractionHandle;
  timer: NodeJS.Timeout;
  /** Whether the deferred answer ("thinking…") was accepted: only then can it be filled. */
  acknowledged: Promise<boolean>;
}

export interface PendingCommand {
  acknowledge(): Promise<void>;
  refuse(text: string): Promise<void>;
}

export class Interactions {
  /** `<channel id>:<user id>` → the user's command waiting for its answer in that channel. */
  private readonly placeholders = new Map<string, Placeholder>();

  constructor(
    private readonly rest: REST,
    private readonly logger: Logger,
  ) {}

  private callback(handle: InteractionHandle, body: unknown): Promise<unknown> {
    return this.rest.post(`/interactions/${handle.id}/${handle.token}/callback`, { body, auth: false });
  }

  /** A button press: acknowledged now, the text shown to the presser alone once `answer` settles. */
  async press(handle: InteractionHandle, answer: () => Promise<string>): Promise<void> {
    try {
      await this.callback(handle, { type: DEFERRED_UPDATE_MESSAGE });
    } catch (error) {
      this.logger.warn({ error: describeError(error) }, "Discord button press not acknowledged");
    }
    const text = await answer();
    if (!text) return;
    try {
      await this.rest.post(`/webhooks/${handle.applicationId}/${handle.token}`, {
        body: { content: text.slice(0, MAX_CONTENT), flags: EPHEMERAL, allowed_mentions: NO_MENTIONS },
        auth: false,
      });
    } catch (error) {
      this.logger.warn({ error: describeError(error) }, "Discord button answer not sent");
    }
  }

  /**
   * A slash command about to be stored. Its placeholder is known before the message is stored,
   * so an answer sent while the acknowledgement is on its way still finds it (and waits for it).
   * Then `acknowledge` (stored: "thinking…") or `refuse` (not stored: told to send it again).
   */
  expectCommand(channelId: string, userId: string, handle: InteractionHandle): PendingCommand {
    const key = `${channelId}:${userId}`;
    let settle!: (acknowledged: boolean) => void;
    const acknowledged = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    this.drop(key, true);
    const timer = setTimeout(() => this.drop(key, true), PLACEHOLDER_TTL_MS);
    timer.unref();
    const placeholder: Placeholder = { handle, timer, acknowledged };
    this.placeholders.set(key, placeholder);
    return {
      acknowledge: async () => {
        try {
          await this.callback(handle, { type: DEFERRED_CHANNEL_MESSAGE });
          settle(true);
        } catch (error) {
          settle(false);
          if (this.placeholders.get(key) === placeholder) this.drop(key, false);
          throw error;
        }
      },
      refuse: async (text) => {
        settle(false);
        if (this.placeholders.get(key) === placeholder) this.drop(key, false);
        await this.refuseCommand(handle, text);
      },
    };
  }

  /** A command that could not be stored: the user alone is told to send it again. */
  private async refuseCommand(handle: InteractionHandle, text: string): Promise<void> {
    try {
      await this.callback(handle, {
        type: CHANNEL_MESSAGE,
        data: { content: text, flags: EPHEMERAL, allowed_mentions: NO_MENTIONS },
      });
    } catch (error) {
      this.logger.warn({ error: describeError(error) }, "Discord command refusal not sent");
    }
  }

  /**
   * Sends `body` as the answer `userId`'s command in `channelId` waits for, if one does: the
   * message's id, or undefined (none waits, or it could not be filled: the caller sends normally).
   */
  async fill(
    channelId: string,
    userId: string,
    body: { content: string; components?: ActionRow[] },
  ): Promise<string | undefined> {
    const key = `${channelId}:${userId}`;
    const placeholder = this.placeholders.get(key);
    if (!placeholder) return undefined;
    this.drop(key, false);
    const { handle } = placeholder;
    if (!(await placeholder.acknowledged)) return undefined;
    try {
      const message = (await this.rest.patch(
        `/webhooks/${handle.applicationId}/${handle.token}/messages/@original`,
        {
          body: { ...body, allowed_mentions: NO_MENTIONS },
          auth: false,
        },
      )) as { id: string };
      return message.id;
    } catch (error) {
      this.logger.warn({ error: toPlatformError(error).message }, "Discord command placeholder not filled");
      this.deleteOriginal(handle);
      return undefined;
    }
  }

  /** Forgets the placeholder under `key`; `remove` also deletes it from the chat. */
  private drop(key: string, remove: boolean): void {
    const placeholder = this.placeholders.get(key);
    if (!placeholder) return;
    clearTimeout(placeholder.timer);
    this.placeholders.delete(key);
    if (!remove) return;
    void placeholder.acknowledged.then((acknowledged) => {
      if (acknowledged) this.deleteOriginal(placeholder.handle);
    });
  }

  /** Removes a "thinking…" placeholder nobody will fill (best effort). */
  private deleteOriginal(handle: InteractionHandle): void {
    this.rest
      .delete(`/webhooks/${handle.applicationId}/${handle.token}/messages/@original`, { auth: false })
      .catch((error: unknown) =>
        this.logger.debug({ error: describeError(error) }, "placeholder not deleted"),
      );
  }

  /** Clears the timers (the router is stopping). */
  close(): void {
    for (const placeholder of this.placeholders.values()) clearTimeout(placeholder.timer);
    this.placeholders.clear();
  }
}
