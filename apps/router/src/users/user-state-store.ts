import { readJsonFile, writeJsonFileAtomic } from "@phonework/runtime";
import { z } from "zod";

// Per-user routing state that must survive a router restart: the active node,
// and the chat we last heard from the user in (where notices about their nodes go).

const ChatRef = z.object({ platform: z.string(), chat_id: z.string() });
export type ChatRef = z.infer<typeof ChatRef>;

const UserState = z.object({
  active_node: z.string().optional(),
  chat: ChatRef.optional(),
  /** Chats the user has written from, newest first: the only places pushes for them may go. */
  chats: z.array(ChatRef).optional(),
  /** Per chat: how a node's answer is shown against its progress message (default "send"). */
  result_modes: z.record(z.string(), z.enum(["replace", "send"])).optional(),
});

/** Chats remembered per user (a few private chats and groups; older ones fall off). */
const MAX_CHATS = 20;

const StateFile = z.object({
  version: z.literal(1),
  users: z.record(z.string(), UserState),
});
type StateFile = z.infer<typeof StateFile>;

const sameChat = (a: ChatRef, b: ChatRef) => a.platform === b.platform && a.chat_id === b.chat_id;

export class UserStateStore {
  private constructor(
    private readonly state: StateFile,
    private readonly persist: (state: StateFile) => void,
  ) {}

  /** State kept in `path`, loaded now and rewritten atomically on every change. */
  static open(path: string): UserStateStore {
    const state = readJsonFile(path, StateFile, { version: 1, users: {} });
    return new UserStateStore(state, (s) => writeJsonFileAtomic(path, s));
  }

  static inMemory(): UserStateStore {
    return new UserStateStore({ version: 1, users: {} }, () => {});
  }

  activeNode(userId: string): string | undefined {
    return this.state.users[userId]?.active_node;
  }

  setActiveNode(userId: string, nodeId: string): void {
    if (this.activeNode(userId) === nodeId) return;
    this.state.users[userId] = { ...this.state.users[userId], active_node: nodeId };
    this.persist(this.state);
  }

  chatOf(userId: string): ChatRef | undefined {
    return this.state.users[userId]?.chat;
  }

  /** `latest: false`: a chat pushes may go to, without becoming where the user's notices go. */
  rememberChat(userId: string, chat: ChatRef, { latest = true }: { latest?: boolean } = {}): void {
    const known = this.chatOf(userId);
    if (known?.platform === chat.platform && known.chat_id === chat.chat_id) return;
    if (!latest && this.hasSeenChat(userId, chat)) return;
    const others = (this.state.users[userId]?.chats ?? []).filter((c) => !sameChat(c, chat));
    const user = this.state.users[userId];
    this.state.users[userId] = {
      ...user,
      ...(latest ? { chat } : {}),
      chats: [chat, ...others].slice(0, MAX_CHATS),
    };
    this.persist(this.state);
  }

  /** Whether the user has written to the bot from this chat. */
  hasSeenChat(userId: string, chat: ChatRef): boolean {
    return (this.state.users[userId]?.chats ?? []).some((c) => sameChat(c, chat));
  }

  resultMode(userId: string, chatId: string): "replace" | "send" {
    return this.state.users[userId]?.result_modes?.[chatId] ?? "send";
  }

  setResultMode(userId: string, chatId: string, mode: "replace" | "send"): void {
    const user = this.state.users[userId];
    this.state.users[userId] = { ...user, result_modes: { ...user?.result_modes, [chatId]: mode } };
    this.persist(this.state);
  }

  /** User ids stored without their adapter's name (a router from before adapters were named). */
  bareIds(): string[] {
    return Object.keys(this.state.users).filter((userId) => !userId.includes(":"));
  }

  /** Gives bare user and chat ids the adapter's name (legacy-ids.ts decides which adapter). */
  qualifyBareIds(adapter: string): void {
    const qualify = (id: string) => (id.includes(":") ? id : `${adapter}:${id}`);
    const chat = (ref: ChatRef): ChatRef => ({ platform: ref.platform, chat_id: qualify(ref.chat_id) });
    const users = Object.entries(this.state.users).map(([userId, user]) => [
      qualify(userId),
      {
        ...user,
        ...(user.chat ? { chat: chat(user.chat) } : {}),
        ...(user.chats ? { chats: user.chats.map(chat) } : {}),
      },
    ]);
    this.state.users = Object.fromEntries(users);
    this.persist(this.state);
  }

  /** Users whose active node is `nodeId`. */
  usersOnNode(nodeId: string): string[] {
    return Object.entries(this.state.users)
      .filter(([, user]) => user.active_node === nodeId)
      .map(([userId]) => userId);
  }
}
