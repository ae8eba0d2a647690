import { KeyedQueue, type Logger, timeOrderedId } from "@phonework/runtime";
import type { AccessPolicy } from "../access/adapter-access.ts";
import type { ButtonStore } from "../chat/button-store.ts";
import type { ChatHub } from "../chat/chat-hub.ts";
import type { ChatAddress, IncomingAttachment, IncomingMessage } from "../chat/chat-types.ts";
import {
  attachmentSkippedText,
  buttonAnsweredText,
  buttonExpiredText,
  buttonNotYoursText,
  buttonPressedText,
  RETRY_COMMAND,
  unknownUserText,
  unsupportedMessageText,
} from "../chat/user-messages.ts";
import { qualifiedId } from "../ids/qualified-id.ts";
import type {
  ButtonPress,
  ChannelMessage,
  PlatformAdapter,
  PlatformEvents,
} from "../platforms/platform-adapter.ts";
import type { SeenEvents } from "../storage/seen-events.ts";
import { TurnCommit } from "../storage/turn-commit.ts";
import { type Heard, VoiceInput } from "../voice/voice-input.ts";
import type { ChatInbox, StoredMessage } from "./chat-inbox.ts";

// What happens to everything one adapter receives, the same for every platform:
//  1. a redelivery (same message or event id within the TTL) is dropped;
//  2. the message is stored in router.db — only then does the adapter acknowledge it, so a crash
//     or restart loses nothing (stored messages not yet handled are handled at the next start);
//     the store joins the turn's one commit (storage/turn-commit.ts) and `message` resolves, i.e.
//     the platform is acknowledged, only once that commit is done. Handling (the steps below)
//     starts at once, so the request's origin joins that same commit (one commit per message, not
//     two), but nothing is sent — to the chat, a node, a speech or download service — before it;
//  3. ids are qualified with the adapter's name; a user the adapter's access rules do not let in
//     is told their id once, a group message not addressed to the bot is ignored;
//  4. a voice note is heard (voice/): its transcript, shown back once, is the message text, or the
//     user is told why not (and `/retry` hears a kept one again);
//  5. attachments are fetched (bounded), and the message goes to the dispatcher. It counts as
//     handled once the dispatcher accepted it (answered, or sent on to a node). That mark may be
//     lost in a crash just after the forward, and the message forwarded again at the next start:
//     under the same request id (its stored request key), so the node runs it once.
// A user's messages are handled one at a time, in the order they came.

export interface ChatIntakeDeps {
  adapter: PlatformAdapter;
  access: AccessPolicy;
  seen: SeenEvents;
  inbox: ChatInbox;
  buttons: ButtonStore;
  chat: ChatHub;
  /** Takes a message; resolves once it is accepted (answered, or forwarded to a node). */
  deliver(message: IncomingMessage): Promise<void>;
  maxAttachmentBytes: number;
  /** Hears voice notes; without it they are audio files like any other. */
  voice?: VoiceInput;
  /**
   * Each stored message's request key (default: a time-ordered uuid, so the requests table, keyed by
   * it, grows at one end instead of at a random page per message).
   */
  newRequestKey?: () => string;
  logger: Logger;
}

export class ChatIntake implements PlatformEvents {
  private readonly perUser = new KeyedQueue();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly name: string;

  private readonly turn: TurnCommit;
  /** Redelivery keys of messages taken whose store is not committed yet (SeenEvents cannot see them). */
  private readonly uncommitted = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: ChatIntakeDeps) {
    this.name = deps.adapter.name;
    this.turn = TurnCommit.of(deps.inbox.database);
  }

  message(message: ChannelMessage): Promise<void> {
    // Counted in flight from the start: a drain also waits for a message whose commit is pending.
    const taking = this.take(message);
    this.inFlight.add(taking);
    // Two unnamed arrows, not one named `done`: the bundle's keepNames makes a named closure per
    // message a defineProperty.
    taking.then(
      () => this.inFlight.delete(taking),
      () => this.inFlight.delete(taking),
    );
    return taking;
  }

  private async take(message: ChannelMessage): Promise<void> {
    // Own namespace: a webhook guard remembers platform event ids in the same store.
    const keys = [
      `inbox:${this.name}:m:${message.channel.id}:${message.id}`,
      ...(message.dedupeKeys ?? []).map((key) => `inbox:${this.name}:${key}`),
    ];
    // Taken in a turn whose commit is still to come: acknowledged only once that commit is done (an
    // earlier ack could lose both copies in a crash); if it fails, this copy fails too, and comes again.
    const pending = keys.map((key) => this.uncommitted.get(key)).find((commit) => commit !== undefined);
    if (pending) {
      await pending;
      this.deps.logger.info({ messageId: message.id }, "redelivered message dropped");
      return;
    }
    if (this.deps.seen.seenWithin(keys)) {
      this.deps.logger.info({ messageId: message.id }, "redelivered message dropped");
      return;
    }
    // One write of the turn's commit (its own savepoint): remembered as seen only if stored too.
    const requestKey = this.newRequestKey();
    const stored = this.turn.run(() => {
      this.deps.seen.rememberAll(keys);
      return this.deps.inbox.store(this.name, message, requestKey);
    });
    for (const key of keys) this.uncommitted.set(key, stored);
    // Handled from now on, so its writes (the request's origin) join this commit; whatever it sends
    // waits for the commit (IncomingMessage.stored).
    this.handleLater(message, stored, requestKey);
    try {
      await stored;
    } finally {
      for (const key of keys) this.uncommitted.delete(key);
    }
  }

  async button(press: ButtonPress): Promise<string> {
    const userId = this.qualify(press.sender.id);
    const result = this.deps.buttons.press(this.name, press.data, userId);
    if (result.kind === "unknown") return buttonExpiredText;
    if (result.kind === "not_yours") return buttonNotYoursText;
    if (result.kind === "answered") return buttonAnsweredText;
    // Pressing is saying the command: the same rules as typing it. A press is no message of its
    // own: answers reply to the one the button was on (a made-up id is no message on the platform).
    const message: ChannelMessage = {
      id: press.messageId ?? `button-${press.data}`,
      channel: press.channel,
      sender: press.sender,
      text: result.command,
      attachments: [],
      isMention: true,
    };
    const requestKey = this.newRequestKey();
    this.handleLater(
      message,
      Promise.resolve(this.deps.inbox.store(this.name, message, requestKey)),
      requestKey,
    );
    return buttonPressedText(result.label);
  }

  /** Handles what was stored but not handled before the last stop. */
  resumeStored(): number {
    const stored = this.deps.inbox.unhandled(this.name);
    if (stored.length > 0)
      this.deps.logger.info({ count: stored.length }, "handling messages stored before a restart");
    for (const row of stored) this.handleLater(row.message, Promise.resolve(row), row.requestKey);
    return stored.length;
  }

  /** Resolves once every message taken so far has been handled. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** `row` settles once the message is stored (committed); handling does not wait for it, sending does. */
  private handleLater(message: ChannelMessage, row: Promise<StoredMessage>, requestKey?: string): void {
    // Settled by `take` too; this only keeps a failed store from being an unhandled rejection.
    row.catch(() => {});
    const work = this.perUser
      .run(message.sender.id, () => this.handle(message, row, requestKey))
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "message handling failed"));
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private newRequestKey(): string {
    return this.deps.newRequestKey?.() ?? timeOrderedId();
  }

  private async handle(
    message: ChannelMessage,
    row: Promise<StoredMessage>,
    requestKey?: string,
  ): Promise<void> {
    const { deps } = this;
    const stored = row.then(() => undefined);
    const userId = this.qualify(message.sender.id);
    const chatId = this.qualify(message.channel.id);
    const to: ChatAddress = { platform: this.name, userId, chatId };
    try {
      if (message.sender.isBot) return;
      if (message.channel.type === "group" && !message.isMention) {
        deps.logger.debug({ messageId: message.id }, "group message not addressed to the bot; ignored");
        return;
      }
      if (!deps.access.mayUse(userId, message.channel.type)) {
        await stored;
        deps.logger.warn({ userId }, "message from a user the access rules do not let in");
        // Told once (per TTL), across restarts too.
        if (!deps.seen.checkAndRemember([`refused:${userId}`]))
          await deps.chat.sendText(to, unknownUserText(userId));
        return;
      }
      if (message.unsupported) {
        await stored;
        await deps.chat.sendText(to, unsupportedMessageText(message.unsupported), { replyTo: message.id });
        return;
      }
      const heard = await this.hearVoice(message, userId, to, stored);
      if (heard === "told") return;
      if (message.attachments.length > 0) await stored;
      const { attachments, notes } = heard
        ? { attachments: [], notes: [] }
        : await this.fetchAttachments(message);
      const text = heard ?? [message.text, ...notes].filter(Boolean).join("\n");
      await deps.deliver({
        platform: this.name,
        messageId: message.id,
        chatId,
        userId,
        ...(message.sender.name ? { userName: message.sender.name } : {}),
        chatType: message.channel.type,
        text,
        ...(attachments.length > 0 ? { attachments } : {}),
        stored,
        ...(requestKey ? { requestKey } : {}),
      });
    } finally {
      const settled = await row.catch(() => undefined);
      if (settled) deps.inbox.markHandled(settled.seq); // not stored: the platform sends it again
    }
  }

  /**
   * A voice note, or `/retry` of a kept one: the words to hand on (shown back first), or "told" when
   * the user was only told something; undefined for every other message.
   */
  private async hearVoice(message: ChannelMessage, userId: string, to: ChatAddress, stored: Promise<void>) {
    const { voice, adapter, chat } = this.deps;
    if (!voice) return undefined;
    const download = adapter.download?.bind(adapter);
    const retry = message.text.trim().toLowerCase() === RETRY_COMMAND;
    if (!retry && !VoiceInput.voiceNoteOf(message)) return undefined;
    await stored;
    const heard: Heard = retry
      ? await voice.retry(this.name, userId, download)
      : await voice.hear(this.name, userId, message, download);
    if (heard.kind === "told") {
      const retry = heard.retry ? { buttons: [[{ label: "Retry", command: RETRY_COMMAND }]] } : {};
      await chat.sendText(to, heard.text, { replyTo: message.id, ...retry });
      return "told" as const;
    }
    await chat.sendText(to, heard.echo, { replyTo: message.id });
    return heard.text;
  }

  /** Fetches what fits the bound; what does not is named in the text instead. */
  private async fetchAttachments(message: ChannelMessage) {
    const attachments: IncomingAttachment[] = [];
    const notes: string[] = [];
    let budget = this.deps.maxAttachmentBytes;
    for (const ref of message.attachments) {
      const download = this.deps.adapter.download?.bind(this.deps.adapter);
      if (!download) {
        notes.push(attachmentSkippedText(ref.name, "this chat cannot send files to the bot"));
        continue;
      }
      if (ref.size !== undefined && ref.size > budget) {
        notes.push(attachmentSkippedText(ref.name, `larger than ${Math.floor(budget / 1024)} KB`));
        continue;
      }
      try {
        const data = await download(ref);
        if (data.length > budget) {
          notes.push(attachmentSkippedText(ref.name, `larger than ${Math.floor(budget / 1024)} KB`));
          continue;
        }
        budget -= data.length;
        attachments.push({ name: ref.name, data, ...(ref.mimeType ? { mimeType: ref.mimeType } : {}) });
      } catch (error) {
        this.deps.logger.warn(
          { err: (error as Error).message, name: ref.name },
          "attachment download failed",
        );
        notes.push(attachmentSkippedText(ref.name, "download failed"));
      }
    }
    return { attachments, notes };
  }

  private qualify(id: string): string {
    return this.deps.adapter.companion ? id : qualifiedId(this.name, id);
  }
}
