import type { HostPushFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { ChatHub } from "../chat/chat-hub.ts";
import type { ChatAddress, SendOptions, SentMessage } from "../chat/chat-types.ts";
import { bindToNode } from "../chat/node-buttons.ts";
import {
  fromNode,
  nodeDisconnectedText,
  nodePairedText,
  nodeReconnectedText,
  taskCompleteText,
} from "../chat/user-messages.ts";
import type { PhoneAlerts } from "../contracts/phone-alerts.ts";
import { splitQualified } from "../ids/qualified-id.ts";
import { type NodeInfo, severalNodes } from "../registry/node-info.ts";
import type { LiveConnection, NodeDirectory, NodeRegistry } from "../registry/node-registry.ts";
import { BoundedMap } from "../storage/bounded-map.ts";
import type { UserStateStore } from "../users/user-state-store.ts";
import { offlineAlert, phoneAlertOf } from "./phone-alert-of.ts";

// Messages the router sends on its own: node offline/back notices, and what hosts push. The one
// place both reach users, so the phone alerts (Web Push, `alerts`) for them are sent here too.

export type PushOutcome = { ok: true; messageId: string | undefined } | { ok: false; error: string };

/** Notify edit keys remembered (in memory: after a restart the next notify is a new message). */
const MAX_EDIT_KEYS = 1000;

export class NodeNotices {
  /**
   * The message each notify `edit_key` last went out as, per node, user and chat. A promise, so a
   * notify that arrives while the one before it is still being sent edits that message too.
   */
  private readonly edited = new BoundedMap<string, Promise<string | undefined>>(MAX_EDIT_KEYS);

  constructor(
    private readonly chat: ChatHub,
    private readonly userState: UserStateStore,
    private readonly nodes: NodeDirectory,
    private readonly logger: Logger,
    /** The user's phone, told of news (console/push); none: the chat only. */
    private readonly alerts?: PhoneAlerts,
  ) {}

  /**
   * Tells affected users when a node drops or comes back, and its owner when a node they paired
   * is online for the first time. Returns the unsubscribe function.
   */
  watch<C extends LiveConnection>(registry: NodeRegistry<C>): () => void {
    return registry.subscribe((event) => {
      if (event.type === "offline") {
        void this.tellUsersOf(event.node, nodeDisconnectedText(event.node));
        this.alertUsersOf(event.node);
      }
      if (event.type !== "online") return;
      if (event.joined) void this.tellOwnerOf(event.node, nodePairedText(event.node));
      else if (event.returning) void this.tellUsersOf(event.node, nodeReconnectedText(event.node));
    });
  }

  /**
   * Hands a host's pushed item to the chat platform; says whether it got there. News the host
   * marked for the phone (and every task completion) also goes to the phone, after the chat, so a
   * tap on it finds the message there.
   */
  async deliverPush(nodeId: string, frame: HostPushFrame): Promise<PushOutcome> {
    try {
      return await this.toChat(nodeId, frame);
    } finally {
      const alert = this.alerts && phoneAlertOf(nodeId, frame);
      if (alert) this.alerts?.alert(alert);
    }
  }

  private async toChat(nodeId: string, frame: HostPushFrame): Promise<PushOutcome> {
    const to = this.pushAddress(nodeId, frame);
    if (!to) {
      this.logger.warn(
        { nodeId, userId: frame.user_id, type: frame.type },
        "no chat known for user; push not delivered",
      );
      return { ok: false, error: `no chat is known for user ${frame.user_id}` };
    }
    let sent: SentMessage | undefined;
    if (frame.type === "send_file") {
      const file = { name: frame.name, data: Buffer.from(frame.data_base64, "base64") };
      sent = await this.chat.sendFile(to, frame.mime_type ? { ...file, mimeType: frame.mime_type } : file);
    } else {
      const text = frame.type === "notify" ? frame.text : taskCompleteText(frame);
      // With several machines, the user needs to know which one is talking.
      const several = severalNodes(this.nodes.nodesForUser(frame.user_id));
      const buttons =
        frame.type === "notify" && frame.buttons ? bindToNode(nodeId, frame.buttons) : undefined;
      const shown = several ? fromNode(nodeId, text) : text;
      const options = buttons ? { buttons } : {};
      sent =
        frame.type === "notify" && frame.edit_key
          ? await this.sendOrEdit(
              [nodeId, frame.user_id, to.platform, to.chatId, frame.edit_key],
              to,
              shown,
              options,
            )
          : await this.chat.sendText(to, shown, options);
    }
    return sent
      ? { ok: true, messageId: sent.messageId }
      : { ok: false, error: "the chat platform did not accept it" };
  }

  /**
   * Edits the message sent before under `key` where the platform can edit it in place (text that
   * fits one message, no buttons: an edit carries neither); else sends a new one, remembered next.
   */
  private async sendOrEdit(
    key: readonly (string | undefined)[],
    to: ChatAddress,
    text: string,
    options: SendOptions,
  ): Promise<SentMessage | undefined> {
    const id = JSON.stringify(key);
    const earlier = this.edited.get(id);
    const sending = (async () => {
      const messageId = await earlier;
      const editable =
        messageId !== undefined && !options.buttons && this.chat.fitsOneMessage(to.platform, text);
      if (editable && (await this.chat.editText(to, messageId, text)))
        return { sent: { messageId }, messageId };
      const sent = await this.chat.sendText(to, text, options);
      // A failed send leaves the earlier message as the one to edit next time.
      return { sent, messageId: sent?.messageId ?? messageId };
    })();
    this.edited.set(
      id,
      sending.then((done) => done.messageId).catch(() => undefined),
    );
    return (await sending).sent;
  }

  /**
   * A push lands only in a chat the user has written to the bot from: the chat the node names if
   * it is one of those, else the user's latest chat. A node cannot point a push at any other chat.
   */
  private pushAddress(nodeId: string, frame: HostPushFrame): ChatAddress | undefined {
    const { platform, chat_id: chatId } = frame;
    if (platform && chatId && this.userState.hasSeenChat(frame.user_id, { platform, chat_id: chatId }))
      return { platform, userId: frame.user_id, chatId };
    if (chatId)
      this.logger.warn(
        { nodeId, userId: frame.user_id, type: frame.type },
        "push named a chat the user never wrote from; sent to the user's latest chat",
      );
    return this.addressOf(frame.user_id);
  }

  /** Users a node's status matters to: those it serves by name, or those using it as their active node. */
  private affectedUsers(node: NodeInfo): readonly string[] {
    return node.servesUsers === "all" ? this.userState.usersOnNode(node.nodeId) : node.servesUsers;
  }

  private async tellOwnerOf(node: NodeInfo, text: string): Promise<void> {
    const to = node.owner ? this.addressOf(node.owner) : undefined;
    if (to) await this.chat.sendText(to, text);
  }

  /** Not while the router closes: nodes dropping then is not news (as the muted chat says nothing). */
  private alertUsersOf(node: NodeInfo): void {
    if (!this.alerts || this.chat.isMuted()) return;
    for (const userId of this.affectedUsers(node)) this.alerts.alert(offlineAlert(node, userId));
  }

  private async tellUsersOf(node: NodeInfo, text: string): Promise<void> {
    for (const userId of this.affectedUsers(node)) {
      const to = this.addressOf(userId);
      if (to) await this.chat.sendText(to, text);
    }
  }

  /** The user's latest chat; with none known, their private chat on the adapter their id names. */
  private addressOf(userId: string): ChatAddress | undefined {
    const known = this.userState.chatOf(userId);
    if (known) return { platform: known.platform, userId, chatId: known.chat_id };
    const platform = splitQualified(userId, this.chat.platforms)?.adapter;
    return platform ? { platform, userId } : undefined;
  }
}
