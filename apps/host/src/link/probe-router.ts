import type { TLSSocket } from "node:tls";
import {
  CURRENT_PROTOCOL_VERSION,
  decodeFrame,
  type ErrorCode,
  encodeFrame,
  NODE_ID_HEADER,
  nodeAuthPayload,
  PROBE_FEATURE,
  type RegisterFrame,
  RouterFrame,
} from "@phonework/protocol";
import { socketText } from "@phonework/runtime";
import { WebSocket } from "ws";
import type { NodeIdentity } from "../identity/node-identity.ts";
import { peerFingerprint } from "./cert-pin.ts";
import type { RouterTls } from "./router-link.ts";

// A dry handshake (`phonework doctor`): connect as the host does, answer the challenge with a
// `register` marked as a probe, and report what the router said. The router registers nothing,
// so a running host with the same key keeps its connection.

export type ProbeOutcome =
  | { kind: "accepted"; protocolVersion: number }
  | { kind: "refused"; code: ErrorCode; reason: string }
  /** The upgrade was refused (401 wrong secret, 404 wrong path, 503 busy…). */
  | { kind: "http-refused"; status: number }
  | { kind: "pin-mismatch"; seen: string }
  | { kind: "unreachable"; code: string | undefined; message: string }
  /** Connected, but no challenge came: not a PhoneWork router of this protocol. */
  | { kind: "no-challenge" }
  /** An older router: it has no dry handshake, and a real register would replace a live host. */
  | { kind: "no-probe" }
  | { kind: "no-answer" }
  | { kind: "closed"; code: number; reason: string };

export interface ProbeOptions {
  url: string;
  nodeId: string;
  /** The shared secret of a router on this machine; or `identity` to prove a key. */
  secret?: string | undefined;
  /** A saved key; a join code it may hold is never sent (a code works once). */
  identity?: NodeIdentity | undefined;
  tls?: RouterTls;
  timeoutMs: number;
}

export function probeRouter(options: ProbeOptions): Promise<ProbeOutcome> {
  const { tls, secret } = options;
  const socket = new WebSocket(options.url, {
    headers: { [NODE_ID_HEADER]: options.nodeId, ...(secret ? { Authorization: `Bearer ${secret}` } : {}) },
    perMessageDeflate: false,
    handshakeTimeout: options.timeoutMs,
    ...(tls?.ca ? { ca: tls.ca } : {}),
    ...(tls?.pinSha256 ? { rejectUnauthorized: false } : {}),
  });
  return new Promise((resolve) => {
    let challenged = false;
    let done = false;
    const timer = setTimeout(
      () => finish(challenged ? { kind: "no-answer" } : { kind: "no-challenge" }),
      options.timeoutMs,
    );
    const finish = (outcome: ProbeOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (socket.readyState === WebSocket.OPEN) {
        // A polite close; the router closes a probe itself right after answering.
        socket.close(1000, "probe done");
        setTimeout(() => socket.terminate(), 1000).unref();
      } else socket.terminate();
      resolve(outcome);
    };
    socket.on("upgrade", (response) => {
      if (!tls?.pinSha256) return;
      const seen = peerFingerprint(response.socket as TLSSocket);
      if (seen !== tls.pinSha256) finish({ kind: "pin-mismatch", seen });
    });
    socket.on("unexpected-response", (_request, response) =>
      finish({ kind: "http-refused", status: response.statusCode ?? 0 }),
    );
    socket.on("error", (error: Error & { code?: string }) =>
      finish({ kind: "unreachable", code: error.code, message: error.message }),
    );
    socket.on("close", (code, reason) => finish({ kind: "closed", code, reason: reason.toString() }));
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      const decoded = decodeFrame(socketText(data), RouterFrame);
      if (!decoded.ok) return;
      const frame = decoded.frame;
      if (frame.type === "challenge") {
        challenged = true;
        if (!frame.features?.includes(PROBE_FEATURE)) finish({ kind: "no-probe" });
        else socket.send(encodeFrame(probeFrame(options, frame.nonce)));
      } else if (frame.type === "register_ok")
        finish({ kind: "accepted", protocolVersion: frame.protocol_version });
      else if (frame.type === "register_error")
        finish({ kind: "refused", code: frame.code, reason: frame.reason });
    });
  });
}

function probeFrame(options: ProbeOptions, nonce: string): RegisterFrame {
  const { identity, nodeId } = options;
  return {
    type: "register",
    node_id: nodeId,
    display_name: nodeId,
    serves_users: [],
    working_dir: "",
    capabilities: [],
    protocol_versions: [CURRENT_PROTOCOL_VERSION],
    sessions: [],
    probe: true,
    ...(identity
      ? {
          auth: {
            public_key: identity.publicKey,
            signature: identity.sign(nodeAuthPayload(nonce, nodeId, identity.publicKey)),
          },
        }
      : {}),
  };
}
