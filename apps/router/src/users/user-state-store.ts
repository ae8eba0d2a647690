import { openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import { z } from "zod";
import { DETAILS_MODES, type DetailsMode } from "./details-mode.ts";

// Per-user routing state that must survive a router restart: the active node, the chat we last
// heard from the user in (where notices about their nodes go), the chats they wrote from, and how
// answers and a turn's details are shown in each chat. One row per user in router.db (`user_state`), written through on
// every change and read from memory: every message asks it. Routers before this kept it in
// users.json (legacy-users-file.ts moves that file in once).

export const USER_STATE_MIGRATION = `
  CREATE TABLE user_state (
    user_id TEXT PRIMARY KEY,
    active_node TEXT,
    chat TEXT,
    chats TEXT NOT NULL DEFAULT '[]',
    result_modes TEXT NOT NULL DEFAULT '{}'
  );`;

/** Each chat's /details choice, beside its result mode. */
export const USER_STATE_DETAILS_MIGRATION = `
  ALTER TABLE user_state ADD COLUMN details_modes TEXT NOT NULL DEFAULT '{}';`;

/** The user's /voice choice: short answers also spoken (0 or 1). */
export const USER_STATE_VOICE_MIGRATION = `
  ALTER TABLE user_state ADD COLUMN voice_out INTEGER NOT NULL DEFAULT 0;`;

const ChatRef = z.object({ platform: z.string(), chat_id: z.string() });
export type ChatRef = z.infer<typeof ChatRef>;

export const UserState = z.object({
  active_node: z.string().optional(),
  chat: ChatRef.optional(),
  /** Chats the user has written from, newest first: the only places pushes for them may go. */
  chats: z.array(ChatRef).optional(),
  /** Per chat: how a node's answer is shown against its progress message (default "send"). */
  result_modes: z.record(z.string(), z.enum(["replace", "send"])).optional(),
  /** Per chat: where a turn's details go (/details); absent: the platform's default. */
  details_modes: z.record(z.string(), z.enum(DETAILS_MODES)).optional(),
  /** /voice on: short answers also arrive as speech (voice/); off when absent. */
  voice_out: z.boolean().optional(),
});
export type UserState = z.infer<typeof UserState>;

/** Chats remembered per user (a few private chats and groups; older ones fall off). */
const MAX_CHATS = 20;

const sameChat = (a: ChatRef, b: ChatRef) => a.platform === b.platform && a.chat_id === b.chat_id;

interface Row {
  user_id: string;
  active_node: string | null;
  chat: string | null;
  chats: string;
  result_modes: string;
  details_modes: string;
  voice_out: number;
}

/** A stored row read back through the schema; a row that no longer reads is an empty state. */
function fromRow(row: Row): UserState {
  const parsed = UserState.safeParse({
    ...(row.active_node ? { active_node: row.active_node } : {}),
    ...(row.chat ? { chat: JSON.parse(row.chat) } : {}),
    chats: JSON.parse(row.chats),
    result_modes: JSON.parse(row.result_modes),
    details_modes: JSON.parse(row.details_modes),
    ...(row.voice_out ? { voice_out: true } : {}),
  });
  return parsed.success ? parsed.data : {};
}

export class UserStateStore {
  private readonly users = new Map<string, UserState>();
  private readonly sql: PreparedStatements;

  constructor(private readonly db: SqliteDatabase) {
    this.sql = new PreparedStatements(db);
    for (const row of this.sql.sql("SELECT * FROM user_state").all() as Row[])
      this.users.set(row.user_id, fromRow(row));
  }

  /** State kept in router.db's `user_state`. */
  static open(db: SqliteDatabase): UserStateStore {
    return new UserStateStore(db);
  }

  static inMemory(): UserStateStore {
    return new UserStateStore(
      openDatabase(":memory:", {
        migrations: [USER_STATE_MIGRATION, USER_STATE_DETAILS_MIGRATION, USER_STATE_VOICE_MIGRATION],
      }),
    );
  }

  activeNode(userId: string): string | undefined {
    return this.users.get(userId)?.active_node;
  }

  setActiveNode(userId: string, nodeId: string): void {
    if (this.activeNode(userId) === nodeId) return;
    this.save(userId, { ...this.users.get(userId), active_node: nodeId });
  }

  chatOf(userId: string): ChatRef | undefined {
    return this.users.get(userId)?.chat;
  }

  /** `latest: false`: a chat pushes may go to, without becoming where the user's notices go. */
  rememberChat(userId: string, chat: ChatRef, { latest = true }: { latest?: boolean } = {}): void {
    const known = this.chatOf(userId);
    if (known?.platform === chat.platform && known.chat_id === chat.chat_id) return;
    if (!latest && this.hasSeenChat(userId, chat)) return;
    const user = this.users.get(userId);
    const others = (user?.chats ?? []).filter((c) => !sameChat(c, chat));
    this.save(userId, { ...user, ...(latest ? { chat } : {}), chats: [chat, ...others].slice(0, MAX_CHATS) });
  }

  /** Whether the user has written to the bot from this chat. */
  hasSeenChat(userId: string, chat: ChatRef): boolean {
    return (this.users.get(userId)?.chats ?? []).some((c) => sameChat(c, chat));
  }

  resultMode(userId: string, chatId: string): "replace" | "send" {
    return this.users.get(userId)?.result_modes?.[chatId] ?? "send";
  }

  setResultMode(userId: string, chatId: string, mode: "replace" | "send"): void {
    const user = this.users.get(userId);
    this.save(userId, { ...user, result_modes: { ...user?.result_modes, [chatId]: mode } });
  }

  /** The chat's /details choice; undefined when it made none (the platform's default applies). */
  detailsMode(userId: string, chatId: string): DetailsMode | undefined {
    return this.users.get(userId)?.details_modes?.[chatId];
  }

  setDetailsMode(userId: string, chatId: string, mode: DetailsMode): void {
    const user = this.users.get(userId);
    this.save(userId, { ...user, details_modes: { ...user?.details_modes, [chatId]: mode } });
  }

  /** Whether the user turned /voice on. */
  voiceOut(userId: string): boolean {
    return this.users.get(userId)?.voice_out === true;
  }

  setVoiceOut(userId: string, on: boolean): void {
    if (this.voiceOut(userId) === on) return;
    this.save(userId, { ...this.users.get(userId), voice_out: on });
  }

  /** User ids stored without their adapter's name (a router from before adapters were named). */
  bareIds(): string[] {
    return [...this.users.keys()].filter((userId) => !userId.includes(":"));
  }

  /** Gives bare user and chat ids the adapter's name (legacy-ids.ts decides which adapter). */
  qualifyBareIds(adapter: string): void {
    const qualify = (id: string) => (id.includes(":") ? id : `${adapter}:${id}`);
    const chat = (ref: ChatRef): ChatRef => ({ platform: ref.platform, chat_id: qualify(ref.chat_id) });
    const users = [...this.users].map(([userId, user]): [string, UserState] => [
      qualify(userId),
      {
        ...user,
        ...(user.chat ? { chat: chat(user.chat) } : {}),
        ...(user.chats ? { chats: user.chats.map(chat) } : {}),
      },
    ]);
    this.db.transaction(() => {
      this.sql.sql("DELETE FROM user_state").run();
      this.users.clear();
      for (const [userId, user] of users) this.save(userId, user);
    })();
  }

  /** Users whose active node is `nodeId`. */
  usersOnNode(nodeId: string): string[] {
    return [...this.users].filter(([, user]) => user.active_node === nodeId).map(([userId]) => userId);
  }

  /** Users from elsewhere (users.json), in one transaction; a user already stored keeps their state. */
  importUsers(users: Record<string, UserState>): number {
    const fresh = Object.entries(users).filter(([userId]) => !this.users.has(userId));
    this.db.transaction(() => {
      for (const [userId, user] of fresh) this.save(userId, user);
    })();
    return fresh.length;
  }

  private save(userId: string, user: UserState): void {
    this.users.set(userId, user);
    this.sql
      .sql(
        `INSERT INTO user_state (user_id, active_node, chat, chats, result_modes, details_modes, voice_out)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET active_node = excluded.active_node, chat = excluded.chat,
           chats = excluded.chats, result_modes = excluded.result_modes, details_modes = excluded.details_modes,
           voice_out = excluded.voice_out`,
      )
      .run(
        userId,
        user.active_node ?? null,
        user.chat ? JSON.stringify(user.chat) : null,
        JSON.stringify(user.chats ?? []),
        JSON.stringify(user.result_modes ?? {}),
        JSON.stringify(user.details_modes ?? {}),
        user.voice_out ? 1 : 0,
      );
  }
}
