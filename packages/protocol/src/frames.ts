import { z } from "zod";
import { Button } from "./button.ts";
import { ErrorCode } from "./errors.ts";
import { overviewHostFrames, overviewRouterFrames } from "./overview-frames.ts";
import { terminalHostFrames, terminalRouterFrames } from "./terminal-frames.ts";

// Every frame exchanged between router and host. Objects are not strict on purpose:
// a peer on the same protocol version may add optional fields, and older peers ignore them.

const Id = z.string().min(1).max(128);
const Text = z.string();
/**
 * Idempotency key of a deliverable item (an answer, a push). The host keeps the item in its
 * durable outbox and sends it again after a reconnect until the router answers `push_ack`; the
 * router delivers each key once. Required on every deliverable frame since v3.
 */
const DeliveryId = Id;

export { Button };

const Buttons = z.array(z.array(Button).min(1).max(8)).max(20);

/** A file that came with a chat message, saved by the host under WORKING_DIR/inbox/. */
export const Attachment = z.object({
  name: z.string().min(1).max(255),
  mime_type: z.string().max(255).optional(),
  data_base64: z.string(),
});
export type Attachment = z.infer<typeof Attachment>;

export const SessionSummary = z.object({
  id: Id,
  agent: z.string().min(1).max(64),
  project: z.string().max(256),
  busy: z.boolean(),
  last_activity: z.string().max(64).optional(),
  /** The chat user the session belongs to (a node may serve several users). */
  user_id: z.string().max(256).optional(),
  /** True while it is its user's active session: their messages to this node continue it. */
  active: z.boolean().optional(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** A node's session list is bounded: what one node may hold of the router's memory. */
export const MAX_SESSIONS = 200;
const Sessions = z.array(SessionSummary).max(MAX_SESSIONS);

/** A chat command a node understands, listed in the router's /help. */
export const CommandInfo = z.object({ usage: z.string().min(1).max(200), description: z.string().max(500) });
export type CommandInfo = z.infer<typeof CommandInfo>;

// ── Master/Worker: a subtask of a plan run on another of the user's nodes ───────

/** A worker's structured result, as the worker prompt asks for it (validated on the host that ran it). */
export const WorkerResult = z.object({
  task_id: z.string().max(128),
  status: z.enum(["success", "failed", "partial"]),
  result: z.string().max(64_000),
  details: z.string().max(64_000).optional(),
  artifacts: z.array(z.string().max(4096)).max(100).default([]),
  /** Seconds from the worker's start to its answer, measured by the host that ran it. */
  duration: z.number().nonnegative(),
  errors: z.array(z.string().max(4000)).max(50).default([]),
});
export type WorkerResult = z.infer<typeof WorkerResult>;

/** How a worker's attempt ended: the ledger's COMPLETED, FAILED or TIMEOUT. */
export const WorkerOutcome = z.enum(["completed", "failed", "timeout"]);
export type WorkerOutcome = z.infer<typeof WorkerOutcome>;

const NodeName = z.string().min(1).max(64);
const UserId = z.string().min(1).max(256);

/**
 * One attempt of a subtask, to run in a worker on another node. A master host sends it with
 * `node` = where to run it; the router checks that both nodes serve `user_id` and relays it
 * with `from_node` = the master (a `from_node` a host sends is ignored). Answered by
 * `worker_status`; the outcome comes later as `worker_result`. Only sent to a node whose
 * register lists the WORKERS_CAPABILITY.
 */
export const WorkerTaskFrame = z.object({
  type: z.literal("worker_task"),
  /** Unique per attempt. */
  task_id: Id,
  /**
   * The plan the subtask belongs to, and the forwarded request (`forward.id`) in whose turn the
   * user started it: the router relays a task only for a plan that a request it forwarded to this
   * master, for this user, started. Optional on the wire (v3 is additive); the router refuses a
   * task without them.
   */
  plan_id: Id.optional(),
  request_id: Id.optional(),
  user_id: UserId,
  platform: z.string().max(64).optional(),
  chat_id: z.string().max(256).optional(),
  node: NodeName,
  from_node: NodeName.optional(),
  objective: z.string().min(1).max(8000),
  context: z.string().max(64_000),
  skills: z.array(z.string().min(1).max(64)).max(20),
  ttl_s: z.number().int().positive().max(86_400),
});

/**
 * A worker task was taken (ok) or refused (with why: NODE_OFFLINE, UNAUTHORIZED, BAD_FRAME,
 * QUEUE_FULL). From the running node to the router, and relayed to the master with `from_node`;
 * the router also sends one on its own when it cannot relay the task, or when the running node
 * drops while the task is in flight.
 */
export const WorkerStatusFrame = z.object({
  type: z.literal("worker_status"),
  task_id: Id,
  ok: z.boolean(),
  from_node: NodeName.optional(),
  error: z.object({ code: ErrorCode, message: Text }).optional(),
});

/**
 * The end of a worker task, through the running node's outbox (`delivery_id`): `node` is the
 * master to deliver to. The router relays it with `from_node`; the master stores it and answers
 * `worker_result_ack`, and only then does the running node get its `push_ack`. A master that is
 * offline gets it later: the router answers the running node RATE_LIMITED-style with NODE_OFFLINE
 * and a retry_after_s, and the item stays in that node's outbox.
 */
export const WorkerResultFrame = z.object({
  type: z.literal("worker_result"),
  task_id: Id,
  user_id: UserId,
  node: NodeName,
  from_node: NodeName.optional(),
  outcome: WorkerOutcome,
  result: WorkerResult,
  delivery_id: DeliveryId,
});

/** The master stored a `worker_result`: the router acknowledges it to the node that ran it. */
export const WorkerResultAckFrame = z.object({
  type: z.literal("worker_result_ack"),
  delivery_id: DeliveryId,
});

/** The master gave up on a worker task (/stop, its deadline): relayed to `node`, which kills it. */
export const WorkerCancelFrame = z.object({
  type: z.literal("worker_cancel"),
  task_id: Id,
  user_id: UserId,
  node: NodeName,
  from_node: NodeName.optional(),
  reason: z.string().max(500),
});

/** In a register's `capabilities`: the node runs worker tasks for other nodes' plans. */
export const WORKERS_CAPABILITY = "workers";

// ── host → router ────────────────────────────────────────────────────────────

/**
 * A paired node proves its key: `signature` is the Ed25519 signature of
 * `nodeAuthPayload(nonce, node_id, public_key)` with the router's fresh `challenge` nonce. With
 * `join_code` it registers this key for the first time (single use).
 */
export const NodeAuth = z.object({
  /** Ed25519 public key, SPKI DER, base64. */
  public_key: z.string().min(1).max(256),
  /** base64. */
  signature: z.string().min(1).max(256),
  join_code: z.string().min(1).max(128).optional(),
});
export type NodeAuth = z.infer<typeof NodeAuth>;

export const RegisterFrame = z.object({
  type: z.literal("register"),
  node_id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9._-]+$/, "node_id may only contain letters, digits, '.', '_' and '-'"),
  display_name: z.string().min(1).max(128),
  /**
   * Users this node is willing to serve; empty: all it may. The router decides who a paired node
   * serves (its owner and the users it is shared with); this list can only narrow that.
   */
  serves_users: z.array(z.string().min(1).max(256)).max(1000),
  working_dir: z.string().max(4096),
  capabilities: z.array(z.string().min(1).max(64)).max(100),
  protocol_versions: z.array(z.number().int().positive()).min(1).max(32),
  sessions: Sessions.default([]),
  /** Absent only for a host admitted by the shared secret (a router on loopback, standalone). */
  auth: NodeAuth.optional(),
  /** Commands this node answers (for the router's /help). */
  commands: z.array(CommandInfo).max(100).optional(),
  /** Tools the node's assistant can use (for the router's /help). */
  tools: z.array(z.string().max(64)).max(100).optional(),
  /**
   * A dry handshake (`phonework doctor`): the router checks the key or the secret and answers
   * `register_ok` or `register_error` as for a real register, then closes the socket. Nothing is
   * registered: a live connection with the same node id is left alone. Sent only to a router whose
   * challenge lists PROBE_FEATURE, and never with a join code (a code works once).
   */
  probe: z.boolean().optional(),
});

export const PongFrame = z.object({ type: z.literal("pong"), ts: z.number() });

/**
 * The host's answer to a `forward`, matched by correlation id. Sent through the host's outbox
 * with a `delivery_id` and the chat it belongs to, so a router that restarted meanwhile (and lost
 * the request) still delivers it, once.
 */
export const ForwardResponseFrame = z.object({
  type: z.literal("forward_response"),
  id: Id,
  text: Text,
  delivery_id: DeliveryId,
  user_id: z.string().min(1).optional(),
  platform: z.string().optional(),
  chat_id: z.string().optional(),
  /**
   * The request failed: the answer is this error (and `text` its message). Sent this way rather
   * than as an `error` frame so a failure is as durable as an answer (outbox, delivery id).
   */
  error: z.object({ code: ErrorCode, message: Text }).optional(),
  buttons: Buttons.optional(),
});

/**
 * What a progress frame carries: a status line (what the request is doing now), or one of the
 * turn's details — a tool call, its (clipped) result, the turn's token usage — which the router
 * shows under the turn's main message, inline, or not at all (the chat's /details setting).
 */
export const ProgressKind = z.enum(["status", "tool", "result", "usage"]);
export type ProgressKind = z.infer<typeof ProgressKind>;

/** A line about a request that is still running. */
export const ProgressFrame = z.object({
  type: z.literal("progress"),
  id: Id,
  text: Text,
  /**
   * Absent means "status" (every host before details). A host sends the other kinds only for a
   * forward that asked for them (`details`), so an older router, which would show them as status
   * lines, never gets one.
   */
  kind: ProgressKind.optional(),
});

/** A message the host pushes on its own (a reminder, a notice). */
export const NotifyFrame = z.object({
  type: z.literal("notify"),
  user_id: z.string().min(1),
  /** Chat platform and chat to deliver to; when absent, the user's last-used chat. */
  platform: z.string().optional(),
  chat_id: z.string().optional(),
  text: Text,
  delivery_id: DeliveryId,
  buttons: Buttons.optional(),
  /**
   * A message kept up to date (a plan's progress): the first notify with this key is sent, later
   * ones edit that message where the platform can edit (else each is a new message).
   */
  edit_key: z.string().min(1).max(128).optional(),
  /**
   * What kind of news this is, for the user's phone: the router also sends a Web Push (to console
   * users who opted in and have no page open) for an approval waiting, a reminder or scheduled
   * check firing, a plan's final report, or a coding turn run as a background task finishing.
   * Absent (older hosts, plain messages, progress edits): the chat only.
   */
  alert: z.enum(["approval", "reminder", "plan", "task"]).optional(),
});

/** A background task finished on the host. */
export const TaskCompleteFrame = z.object({
  type: z.literal("task_complete"),
  task_id: Id,
  user_id: z.string().min(1),
  platform: z.string().optional(),
  chat_id: z.string().optional(),
  ok: z.boolean(),
  description: z.string(),
  output: z.string(),
  elapsed_ms: z.number().nonnegative(),
  delivery_id: DeliveryId,
});

/** A file for the user's chat (file_ops send). */
export const SendFileFrame = z.object({
  type: z.literal("send_file"),
  user_id: z.string().min(1),
  platform: z.string().optional(),
  chat_id: z.string().optional(),
  name: z.string().min(1).max(255),
  mime_type: z.string().optional(),
  data_base64: z.string(),
  delivery_id: DeliveryId,
});

/** The node's coding sessions (and optionally capabilities) changed. */
export const SessionsUpdateFrame = z.object({
  type: z.literal("sessions_update"),
  sessions: Sessions,
  capabilities: z.array(z.string().min(1).max(64)).max(100).optional(),
});

// ── router → host ────────────────────────────────────────────────────────────

/** The router's first frame on every node socket: a fresh nonce for the node to sign. */
export const ChallengeFrame = z.object({
  type: z.literal("challenge"),
  nonce: z.string().min(16).max(128),
  /** Versions the router speaks, so a host can say clearly when it is too old or too new. */
  protocol_versions: z.array(z.number().int().positive()).min(1).max(32),
  /**
   * What this router does beyond its protocol versions, e.g. PROBE_FEATURE. Open strings: a host
   * ignores the ones it does not know, and an older router sends none.
   */
  features: z.array(z.string().min(1).max(64)).max(32).optional(),
});

/** In a challenge's `features`: the router answers a `register` with `probe: true` without registering. */
export const PROBE_FEATURE = "probe";

export const RegisterOkFrame = z.object({
  type: z.literal("register_ok"),
  protocol_version: z.number().int().positive(),
  node_id: z.string(),
  heartbeat_interval_s: z.number().positive(),
  heartbeat_timeout_s: z.number().positive(),
  max_payload_bytes: z.number().int().positive(),
  /**
   * Who owns this node, as the router knows it: the user who paired it (or, for a node the shared
   * secret admitted, the router's admins). Only they change what the host keeps for every user (its
   * memory, skills, custom tools and events). Absent from older routers: then nobody does.
   */
  owners: z.array(z.string().min(1).max(256)).max(100).optional(),
});

export const RegisterErrorFrame = z.object({
  type: z.literal("register_error"),
  code: ErrorCode,
  reason: z.string(),
});

/** Another node serving the same user, as a forward lists it. */
export const PeerNode = z.object({
  node_id: z.string().min(1).max(64),
  display_name: z.string().min(1).max(128),
  online: z.boolean(),
  /** It runs worker tasks (WORKERS_CAPABILITY). */
  workers: z.boolean(),
});
export type PeerNode = z.infer<typeof PeerNode>;

/** A user's chat message forwarded to a node; answered by `forward_response` or `error` with the same id. */
export const ForwardFrame = z.object({
  type: z.literal("forward"),
  id: Id,
  user_id: z.string().min(1),
  chat_id: z.string().min(1),
  platform: z.string().min(1),
  text: Text,
  message_id: z.string().optional(),
  attachments: z.array(Attachment).max(10).optional(),
  /**
   * The user's other nodes, so the assistant can pin a subtask of a plan to one of them (and say
   * which are up). Only nodes that serve this user; absent from older routers.
   */
  nodes: z.array(PeerNode).max(100).optional(),
  /**
   * The chat shows the turn's details (tool calls, results, usage): the host sends them as progress
   * frames with a `kind`. Absent (older routers, or the chat's /details is off): status lines only.
   */
  details: z.boolean().optional(),
});

/** The router gave up on a request (timeout, user left); the host should stop working on it. */
export const CancelFrame = z.object({
  type: z.literal("cancel"),
  id: Id,
  reason: z.string(),
});

export const PingFrame = z.object({ type: z.literal("ping"), ts: z.number() });

/** The router handed a pushed item (by `delivery_id`) to the chat platform, or gave up on it. */
export const PushAckFrame = z.object({
  type: z.literal("push_ack"),
  delivery_id: DeliveryId,
  ok: z.boolean(),
  /** The chat platform's id of the delivered message. */
  message_id: z.string().optional(),
  /** Why the chat platform refused it (ok: false). */
  error: z.string().optional(),
});

// ── both directions ─────────────────────────────────────────────────────────

/** A typed error. With `id` it answers that request; without, it is about the connection. */
export const ErrorFrame = z.object({
  type: z.literal("error"),
  id: Id.optional(),
  /** The pushed item this error is about (e.g. RATE_LIMITED): it stays in the host's outbox. */
  delivery_id: DeliveryId.optional(),
  /** When to try again (RATE_LIMITED). */
  retry_after_s: z.number().nonnegative().optional(),
  code: ErrorCode,
  message: z.string(),
});

const hostOnlyFrames = [
  RegisterFrame,
  PongFrame,
  ForwardResponseFrame,
  ProgressFrame,
  NotifyFrame,
  TaskCompleteFrame,
  SendFileFrame,
  SessionsUpdateFrame,
  WorkerResultAckFrame,
  ...terminalHostFrames,
  ...overviewHostFrames,
] as const;
/** Worker frames go host → router → host, the same shape both ways. */
const workerFrames = [WorkerTaskFrame, WorkerStatusFrame, WorkerResultFrame, WorkerCancelFrame] as const;
const routerOnlyFrames = [
  ChallengeFrame,
  RegisterOkFrame,
  RegisterErrorFrame,
  ForwardFrame,
  CancelFrame,
  PingFrame,
  PushAckFrame,
  ...terminalRouterFrames,
  ...overviewRouterFrames,
] as const;

/** Frames a host may send. */
export const HostFrame = z.discriminatedUnion("type", [...hostOnlyFrames, ...workerFrames, ErrorFrame]);
/** Frames a router may send. */
export const RouterFrame = z.discriminatedUnion("type", [...routerOnlyFrames, ...workerFrames, ErrorFrame]);
/** Every frame of the protocol, in either direction. */
export const Frame = z.discriminatedUnion("type", [
  ...hostOnlyFrames,
  ...workerFrames,
  ...routerOnlyFrames,
  ErrorFrame,
]);

export type RegisterFrame = z.infer<typeof RegisterFrame>;
export type PongFrame = z.infer<typeof PongFrame>;
export type ForwardResponseFrame = z.infer<typeof ForwardResponseFrame>;
export type ProgressFrame = z.infer<typeof ProgressFrame>;
export type NotifyFrame = z.infer<typeof NotifyFrame>;
export type NotifyAlert = NonNullable<NotifyFrame["alert"]>;
export type TaskCompleteFrame = z.infer<typeof TaskCompleteFrame>;
export type SendFileFrame = z.infer<typeof SendFileFrame>;
export type SessionsUpdateFrame = z.infer<typeof SessionsUpdateFrame>;
export type ChallengeFrame = z.infer<typeof ChallengeFrame>;
export type RegisterOkFrame = z.infer<typeof RegisterOkFrame>;
export type RegisterErrorFrame = z.infer<typeof RegisterErrorFrame>;
export type ForwardFrame = z.infer<typeof ForwardFrame>;
export type CancelFrame = z.infer<typeof CancelFrame>;
export type PingFrame = z.infer<typeof PingFrame>;
export type PushAckFrame = z.infer<typeof PushAckFrame>;
export type ErrorFrame = z.infer<typeof ErrorFrame>;
export type WorkerTaskFrame = z.infer<typeof WorkerTaskFrame>;
export type WorkerStatusFrame = z.infer<typeof WorkerStatusFrame>;
export type WorkerResultFrame = z.infer<typeof WorkerResultFrame>;
export type WorkerResultAckFrame = z.infer<typeof WorkerResultAckFrame>;
export type WorkerCancelFrame = z.infer<typeof WorkerCancelFrame>;
export type HostFrame = z.infer<typeof HostFrame>;
export type RouterFrame = z.infer<typeof RouterFrame>;
export type Frame = z.infer<typeof Frame>;
/** Input shapes (before defaults), for code that builds frames. */
export type HostFrameInput = z.input<typeof HostFrame>;
