import type { RegisterFrame } from "@phonework/protocol";
import { readJoinCode } from "./join-code.ts";
import type { NodeStore, PairedNode } from "./node-store.ts";
import { signatureValid } from "./verify-node-key.ts";

// Who may register as a node. A node id belongs to the key paired with it: a connection with
// another key for that id is refused, never a replacement. A join code pairs a key once. The
// shared secret (accepted only on a loopback router) admits a node under an id nobody paired.

export type Admission =
  /** `paired` undefined: admitted by the shared secret. `joined`: this handshake paired the key. */
  { ok: true; paired: PairedNode | undefined; joined: boolean } | { ok: false; reason: string };

export interface AdmissionContext {
  nonce: string;
  /** The connection presented the right shared secret (only possible on a loopback router). */
  viaSecret: boolean;
  store: NodeStore;
  now: number;
}

export function admitNode(frame: RegisterFrame, ctx: AdmissionContext): Admission {
  const { auth, node_id: nodeId } = frame;
  if (!auth) {
    if (!ctx.viaSecret)
      return { ok: false, reason: `node ${nodeId} has no key: pair it with a join code (/pair ${nodeId})` };
    if (ctx.store.get(nodeId))
      return {
        ok: false,
        reason: `node id ${nodeId} belongs to a paired key; the shared secret cannot take it`,
      };
    return { ok: true, paired: undefined, joined: false };
  }
  const badSignature = {
    ok: false,
    reason: "the signature over the router's challenge does not verify",
  } as const;
  if (auth.join_code !== undefined) {
    if (!signatureValid(ctx.nonce, nodeId, auth.public_key, auth.signature)) return badSignature;
    const code = readJoinCode(auth.join_code);
    if (!code || code.nodeId !== nodeId) return { ok: false, reason: "malformed join code" };
    const redeemed = ctx.store.redeemJoinCode(
      code.secretHash,
      nodeId,
      auth.public_key,
      frame.display_name,
      ctx.now,
    );
    if (!redeemed.ok) return redeemed;
    const paired = ctx.store.get(nodeId);
    return paired ? { ok: true, paired, joined: true } : { ok: false, reason: "pairing was not recorded" };
  }
  const paired = ctx.store.get(nodeId);
  if (!paired) return { ok: false, reason: `node ${nodeId} is not paired with this router` };
  if (paired.revokedAt !== undefined) return { ok: false, reason: `node ${nodeId} was revoked` };
  if (paired.publicKey !== auth.public_key)
    return { ok: false, reason: `another key is paired for node ${nodeId}` };
  // Last, as the one costly check (~0.1 ms): a key the table already refuses is not verified.
  if (!signatureValid(ctx.nonce, nodeId, auth.public_key, auth.signature)) return badSignature;
  return { ok: true, paired, joined: false };
}
