import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import {
  CloseCode,
  decodeFrame,
  dispatchFrame,
  encodeFrame,
  type FrameHandlers,
  type HostBoundFrame,
  type HostFrame,
  NODE_ID_HEADER,
  nodeAuthPayload,
  type RegisterFrame,
  type RegisterOkFrame,
  RouterFrame,
} from "@phonework/protocol";
import { type Logger, socketText, TurnWrites } from "@phonework/runtime";
import { WebSocket } from "ws";
import type { NodeIdentity } from "../identity/node-identity.ts";
import { type BackoffPolicy, reconnectDelay, retryAfterDelay } from "./backoff.ts";
import { peerFingerprint } from "./cert-pin.ts";
import {
  connectErrorText,
  httpRefusalText,
  ProblemReporter,
  refusalMessage,
  refusedText,
} from "./link-problems.ts";

// The host's outbound connection to the router: connect, answer the router's challenge with a
// signed `register`, keep alive, and reconnect forever with backoff. NAT-transparent because the
// host always dials out. Frames sent in one turn of the event loop (answers, progress, outbox
// items, acks) leave in one write (TurnWrites), not one syscall each.

/** How the host trusts the router's TLS certificate, beyond the system's CAs. */
export interface RouterTls {
  /** PEM of the CA that signed a self-signed router certificate. */
  ca?: Buffer;
  /** The router certificate's SHA-256 fingerprint (lowercase hex, no colons). */
  pinSha256?: string;
}

/** A router that opens no challenge in this time is not one we can talk to. */
const CHALLENGE_TIMEOUT_MS = 10_000;

export interface RouterLinkOptions {
  url: string;
  /** This node's id: named when connecting, so a router that takes keys can turn strangers away first. */
  nodeId: string;
  /** The shared secret of a router on this machine; undefined when the host proves a key instead. */
  secret?: string | undefined;
  /** The node's key; signs each connection's challenge. */
  identity?: NodeIdentity | undefined;
  tls?: RouterTls;
  /** ws:// to another machine was allowed (ALLOW_INSECURE_TRANSPORT): said at every connect. */
  insecure?: boolean;
  maxPayloadBytes: number;
  backoff: BackoffPolicy;
  logger: Logger;
  /** Registered (a join code, if any, was accepted). */
  onRegistered?: (frame: RegisterOkFrame) => void;
  /**
   * More for the "registered with router" line, the one a user watches for when the host starts
   * (the host adds its sandbox's state there).
   */
  registeredFields?: () => Record<string, unknown>;
  /** The router refused this node's key or join code (it keeps retrying unless told to stop). */
  onRefused?: (reason: string) => void;
  random?: () => number;
}

/** What the host's features give the link to start: who the node is, and who handles which frame. */
export interface LinkService {
  /** Built fresh for each connection so the router always gets the current sessions. */
  registration: () => RegisterFrame;
  /** The one table of everything the router sends a registered host, feature by feature. */
  frames: FrameHandlers<HostBoundFrame>;
  /** The router answered an error about a pushed item (e.g. RATE_LIMITED). */
  pushError: (frame: Extract<RouterFrame, { type: "error" }>) => void;
}

export type LinkState = "idle" | "connecting" | "registered" | "waiting" | "stopped";

export class RouterLink {
  private socket: WebSocket | undefined;
  /** The TCP (or TLS) socket under `socket`, known from its upgrade. */
  private tcp: Socket | undefined;
  private readonly writes = new TurnWrites();
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private challengeTimer: NodeJS.Timeout | undefined;
  private readonly problems: ProblemReporter;
  private waiters: Array<(ok: RegisterOkFrame) => void> = [];
  private readonly listeners = new Set<(state: LinkState) => void>();
  state: LinkState = "idle";
  policy: RegisterOkFrame | undefined;
  private service: LinkService | undefined;

  constructor(private readonly options: RouterLinkOptions) {
    this.problems = new ProblemReporter(options.logger);
  }

  start(service: LinkService): void {
    if (this.state !== "idle") return;
    this.service = service;
    this.connect();
  }

  /** Resolves at the next successful registration (immediately if registered now). */
  registered(): Promise<RegisterOkFrame> {
    if (this.state === "registered" && this.policy) return Promise.resolve(this.policy);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  onStateChange(listener: (state: LinkState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  send(frame: HostFrame): boolean {
    return this.sendEncoded(encodeFrame(frame));
  }

  /** Bytes queued on the socket and not yet written (terminal output holds back while it is high). */
  bufferedAmount(): number {
    return this.socket?.bufferedAmount ?? 0;
  }

  /** A frame already encoded (the outbox stores frames as text). */
  sendEncoded(text: string): boolean {
    if (this.state !== "registered" || this.socket?.readyState !== WebSocket.OPEN) return false;
    if (this.tcp) this.writes.hold(this.tcp);
    this.socket.send(text);
    return true;
  }

  async stop(): Promise<void> {
    this.setState("stopped");
    clearTimeout(this.retryTimer);
    this.stopWatchdog();
    clearTimeout(this.challengeTimer);
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      socket.close(1000, "host stopping");
      setTimeout(() => {
        socket.terminate();
        resolve();
      }, 2000).unref();
    });
  }

  private connect(): void {
    const { logger, secret, tls } = this.options;
    this.setState("connecting");
    if (this.options.insecure)
      logger.warn({ url: this.options.url }, "connecting over plaintext ws:// (ALLOW_INSECURE_TRANSPORT)");
    const socket = new WebSocket(this.options.url, {
      headers: {
        [NODE_ID_HEADER]: this.options.nodeId,
        ...(secret ? { Authorization: `Bearer ${secret}` } : {}),
      },
      maxPayload: this.options.maxPayloadBytes,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      ...(tls?.ca ? { ca: tls.ca } : {}),
      // A pinned certificate is checked by its fingerprint below, before anything is sent.
      ...(tls?.pinSha256 ? { rejectUnauthorized: false } : {}),
    });
    this.socket = socket;
    // Once a problem is reported for this socket, the error its teardown raises is not news.
    let reported = false;
    socket.on("upgrade", (response) => {
      this.tcp = response.socket;
      reported = this.checkPin(socket, response.socket as TLSSocket);
    });
    /** The router's own "come back in": honoured over the usual backoff when it is longer. */
    let retryAfterMs: number | undefined;
    socket.on("unexpected-response", (_request, response) => {
      reported = true;
      if (response.statusCode === 503)
        retryAfterMs = retryAfterDelay(
          response.headers["retry-after"],
          this.options.backoff,
          this.options.random,
        );
      // A 401 with the shared secret is the secret; without one, the router does not expect this
      // node id (not paired, revoked, its join code used or expired), and its answer says so.
      if (response.statusCode !== 401 || secret) {
        this.problems.report(httpRefusalText(response.statusCode ?? 0), { url: this.options.url });
        if (response.statusCode === 401) this.options.onRefused?.("HTTP 401");
        socket.terminate();
        return;
      }
      void refusalMessage(response).then((message) => {
        const reason = message ?? "HTTP 401";
        this.problems.report(refusedText(reason), { url: this.options.url });
        this.options.onRefused?.(reason);
        socket.terminate();
      });
    });
    socket.on("open", () => {
      this.challengeTimer = setTimeout(() => {
        this.problems.report(
          "the router sent no challenge; is ROUTER_URL a PhoneWork router of this version?",
        );
        socket.terminate();
      }, CHALLENGE_TIMEOUT_MS);
    });
    socket.on("message", (data, isBinary) => {
      if (!isBinary) this.handle(socket, socketText(data));
    });
    socket.on("error", (error) => {
      if (!reported) this.problems.report(connectErrorText(error), { url: this.options.url });
    });
    socket.on("close", (code, reason) => {
      if (this.socket !== socket) return;
      this.stopWatchdog();
      clearTimeout(this.challengeTimer);
      if (code === CloseCode.UNAUTHORIZED && reason.toString() === "this node was revoked") {
        this.problems.report(refusedText("this node was revoked"));
        this.options.onRefused?.("this node was revoked");
      }
      this.socket = undefined;
      this.tcp = undefined;
      if (this.state === "stopped") return;
      const delay = Math.max(
        reconnectDelay(this.attempt++, this.options.backoff, this.options.random),
        retryAfterMs ?? 0,
      );
      logger.info({ code, reason: reason.toString(), retryInMs: delay }, "router link closed; reconnecting");
      this.setState("waiting");
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  private handle(socket: WebSocket, raw: string): void {
    // Every frame restarts the watchdog: the same timer again, not a new one per frame.
    if (this.watchdog) this.watchdog.refresh();
    else this.resetWatchdog(socket);
    const decoded = decodeFrame(raw, RouterFrame);
    if (!decoded.ok) {
      this.options.logger.warn({ error: decoded.message }, "bad frame from router");
      socket.send(encodeFrame({ type: "error", code: decoded.code, message: decoded.message }));
      return;
    }
    const frame = decoded.frame;
    switch (frame.type) {
      case "challenge":
        clearTimeout(this.challengeTimer);
        socket.send(encodeFrame(this.signedRegistration(frame.nonce)));
        return;
      case "register_ok":
        this.attempt = 0;
        this.policy = frame;
        this.problems.clear();
        this.setState("registered");
        this.resetWatchdog(socket);
        this.options.logger.info(
          { nodeId: frame.node_id, version: frame.protocol_version, ...this.options.registeredFields?.() },
          "registered with router",
        );
        this.options.onRegistered?.(frame);
        for (const resolve of this.waiters.splice(0)) resolve(frame);
        return;
      case "register_error":
        if (frame.code === "UNAUTHORIZED") {
          this.problems.report(refusedText(frame.reason));
          this.options.onRefused?.(frame.reason);
        } else this.problems.report(`the router refused to register this node: ${frame.reason}`);
        return;
      case "ping":
        socket.send(encodeFrame({ type: "pong", ts: frame.ts }));
        return;
      case "error":
        if (frame.delivery_id) this.service?.pushError(frame);
        else
          this.options.logger.warn(
            { code: frame.code, message: frame.message, id: frame.id },
            "router reported an error",
          );
        return;
      default:
        if (this.service) dispatchFrame(this.service.frames, frame);
        return;
    }
  }

  /** `register`, signed over the router's nonce when this node has a key. */
  private signedRegistration(nonce: string): RegisterFrame {
    if (!this.service) throw new Error("the router link was not started");
    const frame = this.service.registration();
    const { identity } = this.options;
    if (!identity) return frame;
    const signature = identity.sign(nodeAuthPayload(nonce, frame.node_id, identity.publicKey));
    return {
      ...frame,
      auth: {
        public_key: identity.publicKey,
        signature,
        ...(identity.joinCode ? { join_code: identity.joinCode } : {}),
      },
    };
  }

  /**
   * With ROUTER_CERT_SHA256, a router whose certificate has another fingerprint is dropped
   * unanswered. Returns whether it was refused.
   */
  private checkPin(socket: WebSocket, tlsSocket: TLSSocket): boolean {
    const pin = this.options.tls?.pinSha256;
    if (!pin) return false;
    const seen = peerFingerprint(tlsSocket);
    if (seen === pin) return false;
    this.problems.report(
      `the router's TLS certificate (SHA-256 ${seen}) does not match ROUTER_CERT_SHA256; refusing to talk to it`,
    );
    socket.terminate();
    return true;
  }

  /** A router that has gone silent (half-open TCP) is dropped, so the host reconnects. */
  private resetWatchdog(socket: WebSocket): void {
    if (!this.policy) return;
    // Capped: a timer past 2^31-1 ms fires at once (Node clamps it to 1 ms), which would drop a
    // healthy link in a loop if a router ever announced an absurd heartbeat.
    const silenceMs = Math.min(
      (this.policy.heartbeat_interval_s * 2 + this.policy.heartbeat_timeout_s) * 1000,
      MAX_TIMER_MS,
    );
    this.stopWatchdog();
    this.watchdog = setTimeout(() => {
      this.options.logger.warn({ silenceMs }, "router silent too long; reconnecting");
      socket.terminate();
    }, silenceMs);
  }

  /** Cleared for good: `refresh` would start a cleared timer again. */
  private stopWatchdog(): void {
    clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  private setState(state: LinkState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}

const MAX_TIMER_MS = 2 ** 31 - 1;
