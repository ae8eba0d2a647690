import { chmodSync, closeSync, fstatSync, openSync, readSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";
// The two modules it needs, not the package's index: the channel log's thread loads this file,
// and with the index it would load the whole runtime (pino, zod, the SQLite driver) for nothing.
import { atEndOfTurn } from "@phonework/runtime/end-of-turn";
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictMode } from "@phonework/runtime/private-files";

// Appends JSON Lines (a channel's log.jsonl and context.jsonl, written at every message and turn):
// one JSON value per line, one write per batch; a file whose last line was torn (a crash mid-write,
// see jsonl-file.ts) gets a newline first, so the batch starts on a line of its own. The file and its
// directory are private to the owner. Unlike a plain appendFileSync, it does not open the file, make
// its directory and read its last byte at every line (those showed in the profile). A file
// it has written stays open (append mode) with what it knows of it: its inode and its size after
// its own last write. Before the first write of each turn of the event loop one stat of the path
// checks that knowledge: a file deleted, renamed away or replaced (another inode) is closed and made
// again; a file of another size was written by someone else, so its last byte is read again (the
// torn-line rule of jsonl-file.ts); a mode loosened since is made private again (restrictMode's
// rule: only a file we own).
// Once per turn, not per write: a message and its answer land in one turn when the answer comes at
// once (a command; the round-trip bench's echo handler), and each stat (a path lookup) was 3.6 % of
// a forwarded message's CPU there. A model's answer comes turns later and gets a stat of its own.
// What that gives up is nothing today's code had: within a turn nothing else in this process
// writes these files (each has one appender, and the turn runs none of our code in between), so
// only another process can change one mid-turn, and such a change always raced us: one landing
// between a stat and its write was seen at the next write, one landing mid-turn is seen at the next
// turn's first write; the line written in between goes where it went then (a rotated file, glued
// to a torn external line, into a file briefly too open).
// Where it runs: context.jsonl's appender runs on the main thread and writes at once (it is
// written at a model's turn, never on the round-trip bench's path, and its appends throw to their
// caller). log.jsonl's runs, once the host is busy, on a thread of its own (jsonl-thread.ts), fed
// batches by jsonl-thread-writer.ts (the lines of up to COALESCE_MS of the main thread's turns;
// turns "batches": each batch is a turn there, written in one go), so the main thread pays no stat
// and no write per message; until then it runs on the main thread at each turn's end. Readers wait
// for it (after-log-writes.ts).
// At most `maxOpen` files stay open, the least recently written closed first: the chat ids that
// name these paths come from outside, so nothing here grows with them. More chats than that, all
// busy, and each line costs an open and a close again (as every line did before), so the bound is
// well above the chats a host serves at once (the round-trip bench's 100 users, 100 chats).

/** Files kept open at most, unless the owner says otherwise. */
export const DEFAULT_MAX_OPEN = 128;

interface OpenFile {
  fd: number;
  dev: number;
  ino: number;
  /** The file's size after our last write: another size means another writer. */
  size: number;
  /** The turn (JsonLinesAppender.turn) in which the path was last checked against this file. */
  checkedIn: number;
}

export class JsonLinesAppender {
  /** Open files, least recently written first (a Map keeps insertion order). */
  private readonly files = new Map<string, OpenFile>();
  private readonly uid = process.getuid?.();
  /** The event loop's turn, as counted here: a new one starts after a turn that checked a path. */
  private turn = 0;
  /** Schedules the turn's end; absent when the owner says where turns end (`nextTurn`). */
  private readonly endTurn: (() => void) | undefined;

  private maxOpen: number;

  // No parameter properties in this file and the modules it loads: the thread runs them from
  // source with Node's type stripping, which only erases types.
  /**
   * `turns`: "event-loop" (a turn of this thread's event loop) or "batches" (the owner calls
   * `nextTurn` after each batch: the channel log's thread, one batch per hand-over of the main thread).
   */
  constructor(maxOpen = DEFAULT_MAX_OPEN, turns: "event-loop" | "batches" = "event-loop") {
    this.maxOpen = maxOpen;
    this.endTurn = turns === "event-loop" ? atEndOfTurn(() => this.turn++) : undefined;
  }

  /** Appends one JSON value per line. */
  append(path: string, values: readonly unknown[]): void {
    if (values.length > 0) this.appendLines(path, jsonLines(values));
  }

  /** Appends `text`: whole lines (each ending in a newline), as `jsonLines` makes them. */
  appendLines(path: string, text: string): void {
    let file = this.files.get(path);
    this.files.delete(path); // kept again below, as the most recently written
    try {
      let torn = false;
      const state = file && file.checkedIn !== this.turn ? this.recheck(path, file) : "ok";
      if (file && state === "gone") {
        closeSync(file.fd);
        file = undefined;
      } else torn = state === "torn";
      if (!file) {
        file = this.open(path);
        torn = endsTorn(file.fd, file.size);
      }
      if (file.checkedIn !== this.turn) this.checked(file);
      file.size += writeAll(file.fd, torn ? `\n${text}` : text);
    } catch (error) {
      if (file) closeSync(file.fd);
      throw error;
    }
    this.keep(path, file);
  }

  /** Closes every file; appends after this open and close the file each time. */
  close(): void {
    for (const file of this.files.values()) closeSync(file.fd);
    this.files.clear();
    this.maxOpen = 0;
  }

  /** The batch is over: the next write of each file looks at its path again (turns "batches"). */
  nextTurn(): void {
    this.turn++;
  }

  /** How many files are open now. */
  get openFiles(): number {
    return this.files.size;
  }

  /** The file is as the path says for the rest of this turn. */
  private checked(file: OpenFile): void {
    file.checkedIn = this.turn;
    this.endTurn?.();
  }

  /**
   * One stat of the path: "gone" when it is no longer the file we hold open (deleted, replaced),
   * "torn" when someone else changed its size and it now ends without a newline.
   */
  private recheck(path: string, file: OpenFile): "gone" | "torn" | "ok" {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat || stat.ino !== file.ino || stat.dev !== file.dev) return "gone";
    if (this.uid !== undefined && stat.uid === this.uid && (stat.mode & 0o777) !== PRIVATE_FILE_MODE)
      chmodSync(path, PRIVATE_FILE_MODE);
    if (stat.size === file.size) return "ok";
    file.size = stat.size;
    return endsTorn(file.fd, stat.size) ? "torn" : "ok";
  }

  private open(path: string): OpenFile {
    ensurePrivateDir(dirname(path));
    const fd = openSync(path, "a+", PRIVATE_FILE_MODE);
    try {
      // The mode above only applies when the file is created: an existing file keeps its own.
      restrictMode(path, PRIVATE_FILE_MODE);
      const stat = fstatSync(fd);
      return { fd, dev: stat.dev, ino: stat.ino, size: stat.size, checkedIn: -1 };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  private keep(path: string, file: OpenFile): void {
    if (this.maxOpen === 0) {
      closeSync(file.fd);
      return;
    }
    this.files.set(path, file);
    if (this.files.size <= this.maxOpen) return;
    const [oldest, evicted] = this.files.entries().next().value as [string, OpenFile];
    this.files.delete(oldest);
    closeSync(evicted.fd);
  }
}

/** JSON values as lines of a JSON Lines file, one a line. */
export function jsonLines(values: readonly unknown[]): string {
  let text = "";
  for (const value of values) text += `${JSON.stringify(value)}\n`;
  return text;
}

/** Whether the file's last byte (of `size`) is not a newline: a write cut short. */
function endsTorn(fd: number, size: number): boolean {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
}

/** Writes all of `text` (a regular file may take less than asked, as on a full disk); its byte length. */
function writeAll(fd: number, text: string): number {
  const bytes = Buffer.from(text);
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  return bytes.length;
}
