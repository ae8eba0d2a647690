import { z } from "zod";
import { ErrorCode } from "./errors.ts";

// Terminals on a host (a PTY), driven over the node link: the router opens one for a user (the web
// console), relays keystrokes and sizes, and acknowledges the output it has passed on. The host sends
// output only within the window those acknowledgements open, so a terminal never floods the link
// ahead of chat traffic. Sent only to a node whose register lists the TERMINAL_CAPABILITY.

/** In a register's `capabilities`: the node opens terminals (node-pty loaded on it). */
export const TERMINAL_CAPABILITY = "terminal";

/** Most characters of keystrokes or output in one frame (a paste is split into several). */
export const MAX_TERMINAL_DATA = 65_536;

/** Chosen by the router, unique on the node while the terminal lives. */
const TerminalId = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "a terminal id is 1-128 of A-Z a-z 0-9 . _ : -");
const UserId = z.string().min(1).max(256);
const Data = z.string().max(MAX_TERMINAL_DATA);
const Cols = z.number().int().min(2).max(1000);
const Rows = z.number().int().min(1).max(500);

// ── router → host ────────────────────────────────────────────────────────────
// Each carries the user the router acts for: a host lets a user drive only the terminals they opened.

/** Opens a terminal for `user_id`: their login shell in WORKING_DIR. Answered by `terminal_opened` or `terminal_refused`. */
export const TerminalOpenFrame = z.object({
  type: z.literal("terminal_open"),
  id: TerminalId,
  user_id: UserId,
  chat_id: z.string().min(1).max(256),
  platform: z.string().min(1).max(64),
  cols: Cols,
  rows: Rows,
});

/**
 * Keystrokes, as the terminal would send them (`\r` for Enter, escape sequences for arrows). Sent
 * before `terminal_opened`, up to MAX_TERMINAL_DATA of them wait and are typed once it runs.
 */
export const TerminalInputFrame = z.object({
  type: z.literal("terminal_input"),
  id: TerminalId,
  user_id: UserId,
  data: Data,
});

export const TerminalResizeFrame = z.object({
  type: z.literal("terminal_resize"),
  id: TerminalId,
  user_id: UserId,
  cols: Cols,
  rows: Rows,
});

/** Ends the terminal and kills everything it started; answered by `terminal_exit` (reason `closed`). */
export const TerminalCloseFrame = z.object({
  type: z.literal("terminal_close"),
  id: TerminalId,
  user_id: UserId,
});

/**
 * Flow-control credit: `bytes` (UTF-8) of `terminal_output` data the router has passed on since its
 * last ack. The host keeps at most its window (`terminal_opened.window`) unacknowledged; beyond it
 * the output waits on the host, and past its buffer the PTY is paused, so the program blocks.
 */
export const TerminalAckFrame = z.object({
  type: z.literal("terminal_ack"),
  id: TerminalId,
  user_id: UserId,
  bytes: z
    .number()
    .int()
    .positive()
    .max(1 << 30),
});

// ── host → router ────────────────────────────────────────────────────────────

/** The terminal runs; up to `window` bytes of output may be sent before the first ack. */
export const TerminalOpenedFrame = z.object({
  type: z.literal("terminal_opened"),
  id: TerminalId,
  user_id: UserId,
  window: z.number().int().positive(),
});

/** Output, in order (`seq` counts from 0 per terminal), at most 16 KiB of UTF-8 per frame. Sent live, never queued. */
export const TerminalOutputFrame = z.object({
  type: z.literal("terminal_output"),
  id: TerminalId,
  seq: z.number().int().nonnegative(),
  data: Data,
});

/**
 * Why a terminal ended: its program exited; `terminal_close`; no input for TERMINAL_IDLE_S; the host
 * is stopping; or `unknown`: a frame named a terminal the host does not have (it ended before).
 */
export const TerminalExitReason = z.enum(["exited", "closed", "idle", "stopping", "unknown"]);
export type TerminalExitReason = z.infer<typeof TerminalExitReason>;

/** The terminal is gone, after its last output; its process tree has been killed. */
export const TerminalExitFrame = z.object({
  type: z.literal("terminal_exit"),
  id: TerminalId,
  user_id: UserId,
  /** The program's exit code; absent when it was killed (close, idle, stopping) or is not known. */
  code: z.number().int().optional(),
  reason: TerminalExitReason,
});

/**
 * A router frame about terminal `id` was not carried out, for `user_id` only: an open refused
 * (QUEUE_FULL at MAX_TERMINALS, UNAUTHORIZED for a user the node does not serve, INTERNAL when
 * terminals are unavailable there, BAD_FRAME for an id in use), or a frame for a terminal that is
 * not this user's (UNAUTHORIZED). A terminal of another user by that id goes on.
 */
export const TerminalRefusedFrame = z.object({
  type: z.literal("terminal_refused"),
  id: TerminalId,
  user_id: UserId,
  error: z.object({ code: ErrorCode, message: z.string().max(1000) }),
});

export const terminalRouterFrames = [
  TerminalOpenFrame,
  TerminalInputFrame,
  TerminalResizeFrame,
  TerminalCloseFrame,
  TerminalAckFrame,
] as const;
export const terminalHostFrames = [
  TerminalOpenedFrame,
  TerminalOutputFrame,
  TerminalExitFrame,
  TerminalRefusedFrame,
] as const;

export type TerminalOpenFrame = z.infer<typeof TerminalOpenFrame>;
export type TerminalInputFrame = z.infer<typeof TerminalInputFrame>;
export type TerminalResizeFrame = z.infer<typeof TerminalResizeFrame>;
export type TerminalCloseFrame = z.infer<typeof TerminalCloseFrame>;
export type TerminalAckFrame = z.infer<typeof TerminalAckFrame>;
export type TerminalOpenedFrame = z.infer<typeof TerminalOpenedFrame>;
export type TerminalOutputFrame = z.infer<typeof TerminalOutputFrame>;
export type TerminalExitFrame = z.infer<typeof TerminalExitFrame>;
export type TerminalRefusedFrame = z.infer<typeof TerminalRefusedFrame>;
/** The frames a router sends about terminals. */
export type TerminalRouterFrame =
  | TerminalOpenFrame
  | TerminalInputFrame
  | TerminalResizeFrame
  | TerminalCloseFrame
  | TerminalAckFrame;
