import { MAX_TERMINAL_DATA, Overview, SessionSummary, TerminalExitReason } from "@phonework/protocol";
import { z } from "zod";

// What the console page and the router say over /console/ws, one JSON object per WebSocket message.
// The page's frames are checked here like any other input from outside; the router's are typed from
// the same schemas, and the page imports only those types (no zod in the browser bundle).

const TerminalId = z.string().min(1).max(128);
const Cols = z.number().int().min(2).max(1000);
const Rows = z.number().int().min(1).max(500);

/** The longest chat message the page may send (the platforms' own limits are similar). */
export const MAX_CONSOLE_TEXT = 20_000;

/** A recorded voice note, base64, within one page frame (console-page.ts's bound): 90 s at 16 kbit/s. */
export const MAX_CONSOLE_VOICE_BASE64 = 240_000;

// ── page → router ──────────────────────────────────────────────────────────────

export const ConsoleClientFrame = z.discriminatedUnion("type", [
  /** A chat message, as if typed in the user's chat app. */
  z.object({ type: z.literal("chat"), text: z.string().trim().min(1).max(MAX_CONSOLE_TEXT) }),
  /** A voice note recorded on the page (the record button), heard on the router like any platform's. */
  z.object({
    type: z.literal("voice"),
    mime_type: z
      .string()
      .regex(/^audio\/[\w.+-]+(;[\w =.,-]*)?$/, "must be an audio type")
      .max(100),
    data_base64: z
      .string()
      .min(1)
      .max(MAX_CONSOLE_VOICE_BASE64)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, "must be base64"),
  }),
  /** A press of a button the router sent (its opaque id). */
  z.object({
    type: z.literal("press"),
    data: z.string().min(1).max(64),
    message_id: z.string().max(128).optional(),
  }),
  /** `ref`: the page's name for the terminal until the router's `term_started` gives its id. */
  z.object({
    type: z.literal("term_open"),
    ref: z.string().min(1).max(64),
    node: z.string().min(1).max(256),
    cols: Cols,
    rows: Rows,
  }),
  /** Takes back a terminal this sign-in's previous page left (listed in `hello`), under the page's `ref`. */
  z.object({ type: z.literal("term_attach"), ref: z.string().min(1).max(64), id: TerminalId }),
  z.object({ type: z.literal("term_input"), id: TerminalId, data: z.string().min(1).max(MAX_TERMINAL_DATA) }),
  z.object({ type: z.literal("term_resize"), id: TerminalId, cols: Cols, rows: Rows }),
  z.object({ type: z.literal("term_close"), id: TerminalId }),
  /**
   * Whether the page is on screen (document.visibilityState), sent on connecting and on each
   * change: while one of a user's pages is visible, nothing is pushed to their phone.
   */
  z.object({ type: z.literal("visibility"), visible: z.boolean() }),
  /** Output the page has written to its screen, in the bytes `term_output` counted. */
  z.object({
    type: z.literal("term_ack"),
    id: TerminalId,
    bytes: z
      .number()
      .int()
      .positive()
      .max(1 << 30),
  }),
]);
export type ConsoleClientFrame = z.infer<typeof ConsoleClientFrame>;

// ── router → page ──────────────────────────────────────────────────────────────

export const ConsoleNode = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(["online", "offline"]),
  /** Epoch ms. */
  last_seen: z.number(),
  capabilities: z.array(z.string()),
  /** The user's own coding sessions on the node. */
  sessions: z.array(SessionSummary),
  /** "Open terminal" is offered: online, and the host has terminals. */
  terminal: z.boolean(),
  /** Admins only: who paired it, and whether its key was revoked. */
  owner: z.string().optional(),
  revoked: z.boolean().optional(),
});
export type ConsoleNode = z.infer<typeof ConsoleNode>;

/** Every node the router knows, as an admin's pairing view shows it. */
export const AdminNode = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(["online", "offline"]),
  last_seen: z.number(),
  paired: z.boolean(),
  revoked: z.boolean(),
  owner: z.string().optional(),
  /** Who it serves: its owner and the users it is shared with, or "all" (a node admitted by the secret). */
  serves: z.union([z.array(z.string()), z.literal("all")]),
});
export type AdminNode = z.infer<typeof AdminNode>;

export const ConsoleButton = z.object({ label: z.string(), data: z.string() });
export type ConsoleButton = z.infer<typeof ConsoleButton>;

export const ConsoleFile = z.object({
  name: z.string(),
  /** What the router found the bytes to be (file-type.ts): a raster image type or application/octet-stream. */
  mime_type: z.string().optional(),
  size: z.number(),
  /** Absent in the history a page gets on connecting: files are handed only to pages open when they came. */
  data_base64: z.string().optional(),
});

export const ConsoleMessage = z.object({
  id: z.string(),
  text: z.string(),
  /** Epoch ms. */
  at: z.number(),
  /** Typed by the user (in this page or another of theirs). */
  mine: z.boolean().optional(),
  reply_to: z.string().optional(),
  buttons: z.array(z.array(ConsoleButton)).optional(),
  file: ConsoleFile.optional(),
});
export type ConsoleMessage = z.infer<typeof ConsoleMessage>;

export const ConsoleServerFrame = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    user: z.string(),
    admin: z.boolean(),
    nodes: z.array(ConsoleNode),
    /** Admins only. */
    admin_nodes: z.array(AdminNode).optional(),
    messages: z.array(ConsoleMessage),
    /** Terminals this sign-in's previous page left open, waiting to be taken back (`term_attach`). */
    terminals: z.array(z.object({ id: TerminalId, node: z.string() })),
    now: z.number(),
  }),
  z.object({
    type: z.literal("nodes"),
    nodes: z.array(ConsoleNode),
    admin_nodes: z.array(AdminNode).optional(),
    now: z.number(),
  }),
  /** What a node says the user is doing there, as of `at` (the node's clock, epoch ms). */
  z.object({ type: z.literal("overview"), node: z.string(), at: z.number(), overview: Overview }),
  z.object({ type: z.literal("message"), message: ConsoleMessage }),
  z.object({
    type: z.literal("edit"),
    id: z.string(),
    text: z.string(),
    buttons: z.array(z.array(ConsoleButton)).optional(),
  }),
  /** A short answer to something the page did (a button press, a refused frame). */
  z.object({ type: z.literal("toast"), text: z.string() }),
  /** The terminal asked for (or taken back) as `ref` is `id`; or it could not be (`term_failed`). */
  z.object({ type: z.literal("term_started"), ref: z.string(), id: TerminalId, node: z.string() }),
  z.object({ type: z.literal("term_failed"), ref: z.string(), message: z.string() }),
  /** The host runs it: input is taken from now on. */
  z.object({ type: z.literal("term_opened"), id: TerminalId }),
  /** `bytes`: what to acknowledge once it is on the screen. */
  z.object({ type: z.literal("term_output"), id: TerminalId, data: z.string(), bytes: z.number() }),
  z.object({
    type: z.literal("term_exit"),
    id: TerminalId,
    /** The host's reason, or `offline` / `refused` / `gone` (the router's). */
    reason: z.union([TerminalExitReason, z.enum(["offline", "refused", "gone"])]),
    code: z.number().optional(),
    message: z.string().optional(),
  }),
]);
export type ConsoleServerFrame = z.infer<typeof ConsoleServerFrame>;
