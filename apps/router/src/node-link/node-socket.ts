import { randomBytes } from "node:crypto";
import {
  CloseCode,
  decodeFrame,
  type ErrorCode,
  encodeFrame,
  type ForwardResponseFrame,
  HostFrame,
  negotiateVersion,
  PROBE_FEATURE,
  PROTOCOL_VERSIONS,
  type RegisterFrame,
  type RegisterOkFrame,
  type RouterFrame,
  WireError,
} from "@phonework/protocol";
import type { Clock, Logger } from "@phonework/runtime";
import type { RawData, WebSocket } from "ws";
import type { NodeAnswer } from "../contracts/node-answer.ts";
import { type Admission, admitNode } from "../pairing/admit-node.ts";
import type { NodeStore, PairedNode } from "../pairing/node-store.ts";
import { displayNameRefusal } from "../registry/display-name-rule.ts";
import type { NodeRegistry } from "../registry/node-registry.ts";
import type { PendingRequests } from "../rpc/pending-requests.ts";
import { type BackpressurePolicy, type HeartbeatPolicy, NodeConnection } from "./node-connection.ts";

/** Frames a node pushes on its own, to be delivered to a chat. */
export type PushFrame = Extract<HostFrame, { type: "notify" | "task_complete" | "send_file" }>;

/** The router's delivery ledger, as a node socket hands it what the node's outbox sends. */
export interface Deliveries {
  /** An answer (or a failure): to the request still `waiting` for it, else shown as a late answer. */
  answer(nodeId: string, frame: ForwardResponseFrame, waiting: PendingRequests<NodeAnswer>): void;
  /** A notification, task completion or file the node pushes on its own. */
  push(nodeId: string, frame: PushFrame): void;
}

/** Master/Worker frames: relayed between two nodes of the same user. */
export type WorkerFrame = Extract<
  HostFrame,
  { type: "worker_task" | "worker_status" | "worker_result" | "worker_result_ack" | "worker_cancel" }
>;

/** Where a node socket hands the Master/Worker frames its node sends. */
export interface WorkerFrames {
  receive(nodeId: string, frame: WorkerFrame): void;
}

/** Frames about terminals the router opened on a node (the web console's). */
export type TerminalFrame = Extract<
  HostFrame,
  { type: "terminal_opened" | "terminal_output" | "terminal_exit" | "terminal_refused" }
>;

/** Where a node socket hands them: the console's terminal relay. */
export interface TerminalFrames {
  receive(nodeId: string, frame: TerminalFrame): void;
}

/** A host's overview of a user's work, and its notices that one changed (the web console's). */
export type OverviewHostFrame = Extract<HostFrame, { type: "overview" | "overview_changed" }>;

/** Where a node socket hands them: the console's overview relay. */
export interface OverviewFrames {
  receive(nodeId: string, frame: OverviewHostFrame): void;
  /** An `error` frame with an id: true when it answers an overview request (then it is handled). */
  refused(nodeId: string, id: string, message: string): boolean;
}

// The life of one node socket: the `register` handshake, then every frame the node sends.

export interface NodeSocketContext {
  registry: NodeRegistry<NodeConnection>;
  nodes: NodeStore;
  heartbeat: HeartbeatPolicy;
  backpressure: BackpressurePolicy;
  handshakeTimeoutMs: number;
  maxPayloadBytes: number;
  clock: Clock;
  logger: Logger;
  /** Where the node's answers and pushes go to be shown once and acknowledged. */
  deliveries: Deliveries;
  /** Where worker tasks, their statuses, results and cancels go to be relayed. */
  workers: WorkerFrames;
  /** Where terminal output and ends go; without a console, they are dropped. */
  terminals?: TerminalFrames;
  /** Where overviews go; without a console, they are dropped. */
  overviews?: OverviewFrames;
  /** A host's SERVES_USERS as the router stores ids (qualified by chat adapter), or why not. */
  qualifyUsers?: (ids: readonly string[]) => { ok: true; ids: string[] } | { ok: false; reason: string };
  /**
   * Who owns a node, told to its host in `register_ok`: only they change its host-wide state. A
   * paired node: its owner; one the shared secret admitted (this machine's own): the router's admins.
   */
  ownersOf?: (paired: PairedNode | undefined) => string[];
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}

/** What the upgrade that opened a node socket said about it. */
export interface SocketOrigin {
  /** It presented the shared secret (only accepted on a loopback router). */
  viaSecret: boolean;
  /** The node id it named (NODE_ID_HEADER), which `register` must name too. */
  namedNode: string | undefined;
  /** Told once the node has registered: the connection is no stranger's any more. */
  onRegistered?: () => void;
}

/**
 * Every socket starts with a fresh challenge; a paired node signs it in its `register`. A socket
 * that is not registered within the handshake timeout is dropped without a closing handshake (a
 * client that never answers one would hold the socket 30 s more), whether it sent nothing, or was
 * refused, or probed, and did not close.
 */
export function acceptNodeSocket(socket: WebSocket, ctx: NodeSocketContext, origin: SocketOrigin): void {
  const { viaSecret } = origin;
  let connection: NodeConnection | undefined;
  /** A probe was answered: the socket is closing, and nothing it sends can register any more. */
  let probed = false;
  let log = ctx.logger;
  const send = (frame: RouterFrame) => socket.send(encodeFrame(frame));
  const sendError = (code: ErrorCode, message: string, id?: string) =>
    send({ type: "error", code, message, ...(id ? { id } : {}) });
  const nonce = randomBytes(32).toString("base64url");
  send({ type: "challenge", nonce, protocol_versions: [...PROTOCOL_VERSIONS], features: [PROBE_FEATURE] });

  const handshakeTimer = setTimeout(() => {
    if (connection) return;
    log.debug({ timeoutMs: ctx.handshakeTimeoutMs }, "node socket not registered in time; dropped");
    socket.terminate();
  }, ctx.handshakeTimeoutMs);

  const refuse = (nodeId: string, reason: string) => {
    log.warn({ nodeId, reason }, "node refused");
    send({ type: "register_error", code: "UNAUTHORIZED", reason });
    socket.close(CloseCode.UNAUTHORIZED, "unauthorized");
  };

  const admit = (frame: RegisterFrame): Admission => {
    try {
      return admitNode(frame, { nonce, viaSecret, store: ctx.nodes, now: ctx.clock.now() });
    } catch (error) {
      log.error({ err: error, nodeId: frame.node_id }, "node admission failed");
      return { ok: false, reason: "the router could not check this node's key" };
    }
  };

  const register = (sent: RegisterFrame) => {
    let frame = sent;
    if (origin.namedNode !== undefined && frame.node_id !== origin.namedNode) {
      refuse(frame.node_id, `the connection was opened for node ${origin.namedNode}, not ${frame.node_id}`);
      return;
    }
    const version = negotiateVersion(frame.protocol_versions);
    if (version === undefined) {
      const reason = `router speaks protocol versions [${PROTOCOL_VERSIONS.join(", ")}]; node offered [${frame.protocol_versions.join(", ")}]`;
      send({ type: "register_error", code: "UNSUPPORTED_VERSION", reason });
      socket.close(CloseCode.REGISTER_REFUSED, "unsupported protocol version");
      log.warn(
        { nodeId: frame.node_id, offered: frame.protocol_versions },
        "refused node: unsupported protocol version",
      );
      return;
    }
    // Redeeming a code is the one side effect of admission; a dry handshake must have none.
    if (frame.probe && frame.auth?.join_code !== undefined) {
      send({ type: "register_error", code: "BAD_FRAME", reason: "a probe cannot redeem a join code" });
      socket.close(CloseCode.REGISTER_REFUSED, "probe with a join code");
      return;
    }
    const admission = admit(frame);
    if (!admission.ok) {
      refuse(frame.node_id, admission.reason);
      return;
    }
    const served = ctx.qualifyUsers?.(frame.serves_users) ?? { ok: true, ids: frame.serves_users };
    if (!served.ok) {
      send({ type: "register_error", code: "BAD_FRAME", reason: served.reason });
      socket.close(CloseCode.REGISTER_REFUSED, "SERVES_USERS not understood");
      log.warn({ nodeId: frame.node_id, reason: served.reason }, "refused node: SERVES_USERS");
      return;
    }
    frame = { ...frame, serves_users: served.ids };
    const nameRefused = displayNameRefusal(ctx.registry, frame, admission.paired);
    if (nameRefused) {
      log.warn({ nodeId: frame.node_id, reason: nameRefused }, "refused node: display name");
      // The code that paired this key is spent: this once the node registers under its id, and
      // is refused, saying why, from its next connection on.
      if (admission.joined && !frame.probe) frame = { ...frame, display_name: frame.node_id };
      else {
        send({ type: "register_error", code: "BAD_FRAME", reason: nameRefused });
        socket.close(CloseCode.REGISTER_REFUSED, "display name refused");
        return;
      }
    }
    if (frame.probe) {
      answerProbe(frame.node_id, version, admission.paired);
      return;
    }
    attach(frame, version, admission.paired);
    if (admission.joined) log.info({ nodeId: frame.node_id, owner: admission.paired?.owner }, "node paired");
  };

  const registerOk = (nodeId: string, version: number, paired: PairedNode | undefined): RegisterOkFrame => ({
    type: "register_ok",
    protocol_version: version,
    node_id: nodeId,
    heartbeat_interval_s: ctx.heartbeat.intervalMs / 1000,
    heartbeat_timeout_s: ctx.heartbeat.timeoutMs / 1000,
    max_payload_bytes: ctx.maxPayloadBytes,
    ...(ctx.ownersOf ? { owners: ctx.ownersOf(paired) } : {}),
  });

  /** The key (or secret) would be admitted: say so and close, leaving the registry and any live socket alone. */
  const answerProbe = (nodeId: string, version: number, paired: PairedNode | undefined) => {
    probed = true;
    send(registerOk(nodeId, version, paired));
    socket.close(1000, "probe answered; nothing registered");
    log.info({ nodeId, viaSecret }, "node probe answered");
  };

  const attach = (frame: RegisterFrame, version: number, paired: PairedNode | undefined) => {
    connection = new NodeConnection(
      socket,
      frame.node_id,
      ctx.logger.child({ nodeId: frame.node_id }),
      ctx.backpressure,
    );
    log = ctx.logger.child({ nodeId: frame.node_id });
    clearTimeout(handshakeTimer);
    origin.onRegistered?.();
    const replaced = ctx.registry.attach(frame, version, connection, paired);
    if (paired) ctx.nodes.touch(frame.node_id, frame.display_name, ctx.clock.now());
    if (replaced) replaced.close(CloseCode.REPLACED, "replaced by a newer connection with the same node id");
    send(registerOk(frame.node_id, version, paired));
    connection.startHeartbeat(ctx.heartbeat, () => ctx.clock.now());
    log.info({ displayName: frame.display_name, version, replaced: Boolean(replaced) }, "node registered");
  };

  const handshake = (raw: string) => {
    const decoded = decodeFrame(raw, HostFrame);
    if (!decoded.ok || decoded.frame.type !== "register") {
      const got = decoded.ok ? `'${decoded.frame.type}'` : `a bad frame (${decoded.message})`;
      sendError("NOT_REGISTERED", `the first frame must be 'register'; got ${got}`);
      socket.close(CloseCode.POLICY_VIOLATION, "expected a register frame first");
      return;
    }
    register(decoded.frame);
  };

  const handleFrame = (live: NodeConnection, raw: string) => {
    ctx.registry.touch(live.nodeId);
    const decoded = decodeFrame(raw, HostFrame);
    if (!decoded.ok) {
      log.warn({ error: decoded.message }, "bad frame from node");
      sendError(decoded.code, decoded.message);
      return;
    }
    const frame = decoded.frame;
    switch (frame.type) {
      case "register":
        sendError("BAD_FRAME", `already registered as '${live.nodeId}'`);
        return;
      case "pong":
        live.pongReceived();
        return;
      case "forward_response":
        ctx.deliveries.answer(live.nodeId, frame, live.pending);
        return;
      case "progress":
        live.pending.progress(frame.id, frame.text);
        return;
      case "error":
        if (frame.id && ctx.overviews?.refused(live.nodeId, frame.id, frame.message)) return;
        if (frame.id) live.pending.reject(frame.id, new WireError(frame.code, frame.message, live.nodeId));
        else log.warn({ code: frame.code, message: frame.message }, "node reported an error");
        return;
      case "notify":
      case "task_complete":
      case "send_file": {
        // A push queued before the router named its adapters (a reminder set last month) carries
        // a bare user id: read it as SERVES_USERS is read.
        const user = ctx.qualifyUsers?.([frame.user_id]);
        const userId = user?.ok ? (user.ids[0] ?? frame.user_id) : frame.user_id;
        ctx.deliveries.push(live.nodeId, { ...frame, user_id: userId });
        return;
      }
      case "sessions_update":
        ctx.registry.updateSessions(live.nodeId, frame.sessions, frame.capabilities);
        return;
      case "worker_task":
      case "worker_status":
      case "worker_result":
      case "worker_result_ack":
      case "worker_cancel":
        ctx.workers.receive(live.nodeId, frame);
        return;
      case "terminal_opened":
      case "terminal_output":
      case "terminal_exit":
      case "terminal_refused":
        ctx.terminals?.receive(live.nodeId, frame);
        return;
      case "overview":
      case "overview_changed":
        ctx.overviews?.receive(live.nodeId, frame);
        return;
    }
  };

  socket.on("message", (data, isBinary) => {
    // Answered (a probe) or refused and closing: nothing it sends now can register.
    if (probed || (!connection && socket.readyState !== socket.OPEN)) return;
    if (isBinary) {
      if (connection) sendError("BAD_FRAME", "binary frames are not supported");
      else socket.close(CloseCode.POLICY_VIOLATION, "expected a register frame first");
      return;
    }
    const raw = rawToString(data);
    if (connection) handleFrame(connection, raw);
    else handshake(raw);
  });

  socket.on("close", (code, reason) => {
    clearTimeout(handshakeTimer);
    if (!connection) return;
    connection.dispose();
    const wentOffline = ctx.registry.detach(connection.nodeId, connection);
    log.info({ code, reason: reason.toString(), wentOffline }, "node socket closed");
  });

  socket.on("error", (error) => log.warn({ err: error }, "node socket error"));
}
