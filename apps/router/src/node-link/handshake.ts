import { randomBytes } from "node:crypto";
import {
  CloseCode,
  decodeFrame,
  type ErrorCode,
  encodeFrame,
  HostFrame,
  negotiateVersion,
  PROBE_FEATURE,
  PROTOCOL_VERSIONS,
  type RegisterFrame,
  type RegisterOkFrame,
  type RouterFrame,
} from "@phonework/protocol";
import type { Clock, CorkableStream, Logger, TurnWrites } from "@phonework/runtime";
import type { WebSocket } from "ws";
import { type Admission, admitNode } from "../pairing/admit-node.ts";
import type { NodeStore, PairedNode } from "../pairing/node-store.ts";
import { displayNameRefusal } from "../registry/display-name-rule.ts";
import type { NodeRegistry } from "../registry/node-registry.ts";
import { type BackpressurePolicy, type HeartbeatPolicy, NodeConnection } from "./node-connection.ts";

// A node socket until it has registered: the router's `challenge` (a fresh nonce, the protocol
// versions, the probe feature), then the node's `register` — its version negotiated, its key
// checked against the nonce (or a join code redeemed, or the shared secret), its SERVES_USERS and
// display name checked — answered by `register_ok` or by `register_error` and a close. A probe is
// answered as a registration would be, and changes nothing. A socket that is not registered within
// the handshake timeout is dropped without a closing handshake (a client that never answers one
// would hold the socket 30 s more), whether it sent nothing, or was refused, or probed, and did not close.

export interface HandshakeContext {
  registry: NodeRegistry<NodeConnection>;
  nodes: NodeStore;
  heartbeat: HeartbeatPolicy;
  backpressure: BackpressurePolicy;
  handshakeTimeoutMs: number;
  maxPayloadBytes: number;
  clock: Clock;
  logger: Logger;
  /** A host's SERVES_USERS as the router stores ids (qualified by chat adapter), or why not. */
  qualifyUsers?: (ids: readonly string[]) => { ok: true; ids: string[] } | { ok: false; reason: string };
  /**
   * Who owns a node, told to its host in `register_ok`: only they change its host-wide state. A
   * paired node: its owner; one the shared secret admitted (this machine's own): the router's admins.
   */
  ownersOf?: (paired: PairedNode | undefined) => string[];
}

/** What the upgrade that opened a node socket said about it. */
export interface SocketOrigin {
  /** It presented the shared secret (only accepted on a loopback router). */
  viaSecret: boolean;
  /** The node id it named (NODE_ID_HEADER), which `register` must name too. */
  namedNode: string | undefined;
  /** Told once the node has registered: the connection is no stranger's any more. */
  onRegistered?: () => void;
  /** When the register frame is handled: now, or in a later turn (HandshakeAdmission.scheduleRegistration). */
  paceRegistration: (register: () => void) => void;
  /** The TCP socket under the WebSocket, and who batches its writes by turn (NodeConnection). */
  tcp: CorkableStream;
  writes: TurnWrites;
}

export class NodeHandshake {
  /** A probe was answered: the socket is closing, and nothing it sends can register any more. */
  probed = false;
  private readonly nonce = randomBytes(32).toString("base64url");
  private readonly timer: NodeJS.Timeout;
  private registered = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly ctx: HandshakeContext,
    private readonly origin: SocketOrigin,
    /** Told the registered node's connection; its frames are the caller's from then on. */
    private readonly onAttached: (connection: NodeConnection) => void,
  ) {
    this.send({
      type: "challenge",
      nonce: this.nonce,
      protocol_versions: [...PROTOCOL_VERSIONS],
      features: [PROBE_FEATURE],
    });
    this.timer = setTimeout(() => {
      if (this.registered) return;
      ctx.logger.debug({ timeoutMs: ctx.handshakeTimeoutMs }, "node socket not registered in time; dropped");
      socket.terminate();
    }, ctx.handshakeTimeoutMs);
  }

  /** The first frame: it must be `register`. */
  receive(raw: string): void {
    const decoded = decodeFrame(raw, HostFrame);
    if (!decoded.ok || decoded.frame.type !== "register") {
      const got = decoded.ok ? `'${decoded.frame.type}'` : `a bad frame (${decoded.message})`;
      this.sendError("NOT_REGISTERED", `the first frame must be 'register'; got ${got}`);
      this.socket.close(CloseCode.POLICY_VIOLATION, "expected a register frame first");
      return;
    }
    this.register(decoded.frame);
  }

  /** The socket closed (registered or not): the timeout has nothing left to drop. */
  dispose(): void {
    clearTimeout(this.timer);
  }

  private send(frame: RouterFrame): void {
    this.socket.send(encodeFrame(frame));
  }

  private sendError(code: ErrorCode, message: string): void {
    this.send({ type: "error", code, message });
  }

  /** `register_error` and a close: what every refusal after the first frame says. */
  private refuseRegistration(code: ErrorCode, reason: string, closeCode: number, closeReason: string): void {
    this.send({ type: "register_error", code, reason });
    this.socket.close(closeCode, closeReason);
  }

  private refuse(nodeId: string, reason: string): void {
    this.ctx.logger.warn({ nodeId, reason }, "node refused");
    this.refuseRegistration("UNAUTHORIZED", reason, CloseCode.UNAUTHORIZED, "unauthorized");
  }

  private admit(frame: RegisterFrame): Admission {
    const { ctx } = this;
    try {
      return admitNode(frame, {
        nonce: this.nonce,
        viaSecret: this.origin.viaSecret,
        store: ctx.nodes,
        now: ctx.clock.now(),
      });
    } catch (error) {
      ctx.logger.error({ err: error, nodeId: frame.node_id }, "node admission failed");
      return { ok: false, reason: "the router could not check this node's key" };
    }
  }

  private register(sent: RegisterFrame): void {
    const { ctx, origin } = this;
    const log = ctx.logger;
    if (origin.namedNode !== undefined && sent.node_id !== origin.namedNode) {
      this.refuse(
        sent.node_id,
        `the connection was opened for node ${origin.namedNode}, not ${sent.node_id}`,
      );
      return;
    }
    const version = negotiateVersion(sent.protocol_versions);
    if (version === undefined) {
      const reason = `router speaks protocol versions [${PROTOCOL_VERSIONS.join(", ")}]; node offered [${sent.protocol_versions.join(", ")}]`;
      this.refuseRegistration(
        "UNSUPPORTED_VERSION",
        reason,
        CloseCode.REGISTER_REFUSED,
        "unsupported protocol version",
      );
      log.warn(
        { nodeId: sent.node_id, offered: sent.protocol_versions },
        "refused node: unsupported protocol version",
      );
      return;
    }
    // Redeeming a code is the one side effect of admission; a dry handshake must have none.
    if (sent.probe && sent.auth?.join_code !== undefined) {
      const reason = "a probe cannot redeem a join code";
      this.refuseRegistration("BAD_FRAME", reason, CloseCode.REGISTER_REFUSED, "probe with a join code");
      return;
    }
    const admission = this.admit(sent);
    if (!admission.ok) {
      this.refuse(sent.node_id, admission.reason);
      return;
    }
    const frame = this.checked(sent, admission);
    if (!frame) return;
    if (frame.probe) this.answerProbe(frame.node_id, version, admission.paired);
    else this.attach(frame, version, admission.paired, admission.joined);
    if (admission.joined && !frame.probe)
      log.info({ nodeId: frame.node_id, owner: admission.paired?.owner }, "node paired");
  }

  /** The frame with its SERVES_USERS qualified and its display name allowed, or undefined when refused. */
  private checked(sent: RegisterFrame, admission: Admission & { ok: true }): RegisterFrame | undefined {
    const { ctx } = this;
    const served = ctx.qualifyUsers?.(sent.serves_users) ?? { ok: true, ids: sent.serves_users };
    if (!served.ok) {
      this.refuseRegistration(
        "BAD_FRAME",
        served.reason,
        CloseCode.REGISTER_REFUSED,
        "SERVES_USERS not understood",
      );
      ctx.logger.warn({ nodeId: sent.node_id, reason: served.reason }, "refused node: SERVES_USERS");
      return undefined;
    }
    const frame = { ...sent, serves_users: served.ids };
    const nameRefused = displayNameRefusal(ctx.registry, frame, admission.paired);
    if (!nameRefused) return frame;
    ctx.logger.warn({ nodeId: frame.node_id, reason: nameRefused }, "refused node: display name");
    // The code that paired this key is spent: this once the node registers under its id, and
    // is refused, saying why, from its next connection on.
    if (admission.joined && !frame.probe) return { ...frame, display_name: frame.node_id };
    this.refuseRegistration("BAD_FRAME", nameRefused, CloseCode.REGISTER_REFUSED, "display name refused");
    return undefined;
  }

  private registerOk(nodeId: string, version: number, paired: PairedNode | undefined): RegisterOkFrame {
    const { ctx } = this;
    return {
      type: "register_ok",
      protocol_version: version,
      node_id: nodeId,
      heartbeat_interval_s: ctx.heartbeat.intervalMs / 1000,
      heartbeat_timeout_s: ctx.heartbeat.timeoutMs / 1000,
      max_payload_bytes: ctx.maxPayloadBytes,
      ...(ctx.ownersOf ? { owners: ctx.ownersOf(paired) } : {}),
    };
  }

  /** The key (or secret) would be admitted: say so and close, leaving the registry and any live socket alone. */
  private answerProbe(nodeId: string, version: number, paired: PairedNode | undefined): void {
    this.probed = true;
    this.send(this.registerOk(nodeId, version, paired));
    this.socket.close(1000, "probe answered; nothing registered");
    this.ctx.logger.info({ nodeId, viaSecret: this.origin.viaSecret }, "node probe answered");
  }

  private attach(
    frame: RegisterFrame,
    version: number,
    paired: PairedNode | undefined,
    joined: boolean,
  ): void {
    const { ctx } = this;
    // No child logger per node: it would be kept as long as the socket; lines name the node instead.
    const log = ctx.logger;
    const { tcp, writes } = this.origin;
    const connection = new NodeConnection(this.socket, frame.node_id, log, ctx.backpressure, tcp, writes);
    this.registered = true;
    clearTimeout(this.timer);
    this.origin.onRegistered?.();
    this.onAttached(connection);
    const replaced = ctx.registry.attach(frame, version, connection, paired, joined);
    if (paired) ctx.nodes.touch(frame.node_id, frame.display_name, ctx.clock.now());
    if (replaced) replaced.close(CloseCode.REPLACED, "replaced by a newer connection with the same node id");
    this.send(this.registerOk(frame.node_id, version, paired));
    connection.startHeartbeat(ctx.heartbeat, ctx.clock); // the clock, not a closure per node over ctx
    log.info(
      { nodeId: frame.node_id, displayName: frame.display_name, version, replaced: Boolean(replaced) },
      "node registered",
    );
  }
}
