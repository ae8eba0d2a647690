import type { TerminalExitReason } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import { OutputQueue, utf8Bytes } from "./output-queue.ts";
import type { PtyProcess } from "./pty-module.ts";
import { killSessionTree } from "./session-processes.ts";

// One program on a PTY, its output under flow control. Output read from the PTY waits here until
// the consumer (the router link, or the chat's headless screen) reads it, and counts against the
// buffer until the consumer acknowledges it. Near the limit the PTY is paused: the kernel's buffer
// fills and the program blocks on its next write, so nothing is dropped and memory stays bounded.

/** How a terminal ended; `code` only when its program exited by itself. */
export interface TerminalEnd {
  reason: Exclude<TerminalExitReason, "unknown">;
  code?: number;
}

/**
 * The most one read from the PTY brings (libuv reads 64 KiB at a time). The PTY is paused this far
 * below the limit, so the read already under way still fits.
 */
export const READ_ALLOWANCE_BYTES = 64 * 1024;

/** A program that does not die from a hangup is killed this long after. */
const DEFAULT_KILL_GRACE_MS = 1000;

export interface TerminalSessionOptions {
  pty: PtyProcess;
  owner: ChatOwner;
  /** What runs: the shell or the command, for logs and the chat. */
  label: string;
  /** Output read and not yet acknowledged, at most (TERMINAL_BUFFER_BYTES). */
  bufferBytes: number;
  /** Closed after this long without input (TERMINAL_IDLE_S). */
  idleMs: number;
  killGraceMs?: number;
  logger: Logger;
}

export class TerminalSession {
  readonly pid: number;
  readonly owner: ChatOwner;
  readonly label: string;
  /** Resolves once the program is gone (its tree killed when the terminal was closed). */
  readonly ended: Promise<TerminalEnd>;
  private readonly queue = new OutputQueue();
  /** Handed to the consumer, not yet acknowledged. */
  private unacked = 0;
  private paused = false;
  private peak = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closing: TerminalEnd["reason"] | undefined;
  private endedWith: TerminalEnd | undefined;
  private resolveEnded: (end: TerminalEnd) => void = () => {};
  private readonly listeners = new Set<() => void>();
  private readonly highWater: number;

  constructor(private readonly options: TerminalSessionOptions) {
    this.pid = options.pty.pid;
    this.owner = options.owner;
    this.label = options.label;
    this.highWater = Math.max(1, options.bufferBytes - READ_ALLOWANCE_BYTES);
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    options.pty.onData((data) => {
      if (this.closing) return; // nobody reads a closed terminal's output
      this.queue.push(data);
      this.throttle();
      this.notify();
    });
    options.pty.onExit(({ exitCode, signal }) => this.exited(exitCode, signal));
    this.touch();
  }

  /** Set once the program is gone; output may still wait to be read. */
  get end(): TerminalEnd | undefined {
    return this.endedWith;
  }

  /** Output this terminal holds: read from the PTY and not yet acknowledged by the consumer. */
  get bufferedBytes(): number {
    return this.queue.bytes + this.unacked;
  }

  /** The most `bufferedBytes` has ever been. */
  get peakBufferedBytes(): number {
    return this.peak;
  }

  /** Output not yet read by the consumer. */
  get queuedBytes(): number {
    return this.queue.bytes;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** `listener` is called when there is output to read, or the program ended. */
  onReadable(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Up to `maxBytes` of output; it counts against the buffer until `ack`ed. */
  read(maxBytes: number): string {
    const text = this.queue.take(Math.min(maxBytes, this.options.bufferBytes - this.unacked));
    this.unacked += utf8Bytes(text);
    return text;
  }

  /** The consumer passed on `bytes` of what it read. */
  ack(bytes: number): void {
    this.unacked = Math.max(0, this.unacked - bytes);
    this.throttle();
    if (this.queue.bytes > 0) this.notify();
  }

  /** Keystrokes; false once the program is gone. Input keeps the terminal from going idle. */
  write(data: string): boolean {
    if (this.endedWith || this.closing) return false;
    this.touch();
    this.options.pty.write(data);
    return true;
  }

  /** The emulator's answer to a query of the program (cursor position…): not input, so no keep-alive. */
  reply(data: string): void {
    if (!this.endedWith && !this.closing) this.options.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    if (this.endedWith || this.closing) return;
    try {
      this.options.pty.resize(cols, rows);
    } catch (error) {
      this.options.logger.debug({ err: error, pid: this.pid }, "terminal resize failed");
    }
  }

  /** Kills the program and everything it started; resolves when they are gone. */
  async close(reason: TerminalEnd["reason"] = "closed"): Promise<TerminalEnd> {
    if (this.endedWith) return this.endedWith;
    if (!this.closing) {
      this.closing = reason;
      clearTimeout(this.idleTimer);
      this.queue.clear();
      this.unacked = 0;
      // A paused PTY would not notice its program is gone; reading on lets node-pty see the end.
      this.throttle();
      this.options.logger.info({ pid: this.pid, reason, label: this.label }, "closing terminal");
      await killSessionTree(this.pid, this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      // node-pty reports the exit once the PTY closes; should it not, the tree is gone anyway.
      const timeout = setTimeout(() => this.exited(undefined, undefined), 1000);
      await this.ended;
      clearTimeout(timeout);
    }
    return this.ended;
  }

  private exited(exitCode: number | undefined, signal: number | undefined): void {
    if (this.endedWith) return;
    clearTimeout(this.idleTimer);
    const end: TerminalEnd = this.closing
      ? { reason: this.closing }
      : { reason: "exited", ...(exitCode !== undefined ? { code: signal ? 128 + signal : exitCode } : {}) };
    this.endedWith = end;
    if (this.paused) {
      this.paused = false;
      this.options.pty.resume();
    }
    // What the program left running (a background job, a daemon) goes with it, as on a hangup.
    if (!this.closing) void killSessionTree(this.pid, this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    this.options.logger.info({ pid: this.pid, ...end }, "terminal ended");
    this.resolveEnded(end);
    this.notify();
  }

  private throttle(): void {
    const buffered = this.bufferedBytes;
    this.peak = Math.max(this.peak, buffered);
    if (this.endedWith) return;
    if (!this.paused && !this.closing && buffered >= this.highWater) {
      this.paused = true;
      this.options.pty.pause();
    } else if (this.paused && (this.closing || buffered <= this.highWater / 2)) {
      this.paused = false;
      this.options.pty.resume();
    }
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close("idle"), this.options.idleMs);
    this.idleTimer.unref();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
