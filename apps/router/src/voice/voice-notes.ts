import { openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import type { ChannelMessage } from "../platforms/platform-adapter.ts";

// Each user's last voice note that could not be transcribed (the endpoint down, slow, not set up),
// kept in router.db so `/retry` can hear it again after a restart too: the message as the platform
// sent it, and its audio when it was fetched (a platform's file link may not last). Kept before the
// inbox marks the message handled, so a stored-and-acknowledged voice note is never lost. One per
// user (a newer one replaces it); forgotten once heard, or after a week.

export const VOICE_NOTES_MIGRATION = `
  CREATE TABLE voice_notes (
    adapter TEXT NOT NULL,
    user_id TEXT NOT NULL,
    message TEXT NOT NULL,
    audio BLOB,
    at INTEGER NOT NULL,
    PRIMARY KEY (adapter, user_id)
  );`;

const KEEP_MS = 7 * 86_400_000;

export interface KeptVoiceNote {
  message: ChannelMessage;
  audio?: Buffer;
}

export class VoiceNotes {
  private readonly sql: PreparedStatements;

  constructor(
    db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.sql = new PreparedStatements(db);
  }

  static inMemory(now: () => number = Date.now): VoiceNotes {
    return new VoiceNotes(openDatabase(":memory:", { migrations: [VOICE_NOTES_MIGRATION] }), now);
  }

  keep(adapter: string, userId: string, message: ChannelMessage, audio: Buffer | undefined): void {
    this.sql.sql("DELETE FROM voice_notes WHERE at <= ?").run(this.now() - KEEP_MS);
    this.sql
      .sql("INSERT OR REPLACE INTO voice_notes (adapter, user_id, message, audio, at) VALUES (?, ?, ?, ?, ?)")
      .run(adapter, userId, JSON.stringify(message), audio ?? null, this.now());
  }

  find(adapter: string, userId: string): KeptVoiceNote | undefined {
    const row = this.sql
      .sql("SELECT message, audio FROM voice_notes WHERE adapter = ? AND user_id = ? AND at > ?")
      .get(adapter, userId, this.now() - KEEP_MS) as { message: string; audio: Buffer | null } | undefined;
    if (!row) return undefined;
    try {
      const message = JSON.parse(row.message) as ChannelMessage;
      return { message, ...(row.audio ? { audio: Buffer.from(row.audio) } : {}) };
    } catch {
      this.forget(adapter, userId); // unreadable: never retried forever
      return undefined;
    }
  }

  forget(adapter: string, userId: string): void {
    this.sql.sql("DELETE FROM voice_notes WHERE adapter = ? AND user_id = ?").run(adapter, userId);
  }
}
