import { CloseCode } from "@phonework/protocol";
import { mintJoinCode } from "./join-code.ts";
import type { NodeStore, PairedNode } from "./node-store.ts";

// The admin's side of pairing: mint join codes, revoke and forget nodes, share them. Used by the
// chat commands and by `phonework pair` (which runs without a registry, beside the router).

const NODE_ID = /^[A-Za-z0-9._-]{1,64}$/;

export type PairingResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** The part of the node registry pairing changes. */
export interface PairingRegistry {
  updatePairing(paired: PairedNode): void;
  /** The node's live connection, closed when its key is revoked or it is forgotten. */
  connection(nodeId: string): { close(code: number, reason: string): void } | undefined;
  forget(nodeId: string): boolean;
}

export interface PairingServiceDeps {
  store: NodeStore;
  registry?: PairingRegistry;
  joinCodeTtlMs: number;
  now: () => number;
  /** Told every join code minted, so the logger can redact it by value. */
  onSecret?: (secret: string) => void;
}

export class PairingService {
  constructor(private readonly deps: PairingServiceDeps) {}

  /** A one-time code that pairs the next host presenting it as `nodeId`, owned by `owner`. */
  /**
   * A join code for `nodeId`. For a node that is paired, only `again` (its owner or an admin asked)
   * mints one: it replaces the key the node has now, which is refused once the code is used, and
   * the node keeps its owner.
   */
  pair(
    nodeId: string,
    owner: string,
    again = false,
  ): PairingResult<{ code: string; expiresAt: number; replacing: boolean }> {
    const { store, now } = this.deps;
    if (!NODE_ID.test(nodeId))
      return { ok: false, error: "a node name may only hold letters, digits, '.', '_' and '-' (at most 64)" };
    const existing = store.get(nodeId);
    const paired = existing && existing.revokedAt === undefined ? existing : undefined;
    if (paired && !again)
      return {
        ok: false,
        error: `${nodeId} is already paired. To give it a new key: /revoke ${nodeId}, then /pair ${nodeId} again.`,
      };
    store.pruneJoinCodes(now());
    const { code, secretHash } = mintJoinCode(nodeId);
    this.deps.onSecret?.(code);
    const expiresAt = now() + this.deps.joinCodeTtlMs;
    store.addJoinCode(
      secretHash,
      nodeId,
      paired?.owner ?? owner,
      { now: now(), expiresAt },
      paired?.publicKey,
    );
    return { ok: true, value: { code, expiresAt, replacing: paired !== undefined } };
  }

  /** Who owns a paired node (undefined: no such node, or revoked). */
  ownerOf(nodeId: string): string | undefined {
    const node = this.deps.store.get(nodeId);
    return node && node.revokedAt === undefined ? node.owner : undefined;
  }

  /** Refuses the node's key from now on and closes its socket at once. */
  revoke(nodeId: string): PairingResult<PairedNode> {
    const node = this.deps.store.get(nodeId);
    if (!node) return { ok: false, error: `${nodeId} is not a paired node` };
    this.deps.store.revoke(nodeId, this.deps.now());
    const revoked = this.deps.store.get(nodeId) ?? node;
    this.deps.registry?.updatePairing(revoked);
    this.deps.registry?.connection(nodeId)?.close(CloseCode.UNAUTHORIZED, "this node was revoked");
    return { ok: true, value: revoked };
  }

  /** Removes an offline node from the lists (and its pairing, if it had one). */
  forget(nodeId: string): PairingResult<string> {
    const { registry, store } = this.deps;
    if (registry?.connection(nodeId)) return { ok: false, error: `${nodeId} is online; /revoke it first` };
    const listed = registry?.forget(nodeId) ?? false;
    const paired = store.forget(nodeId);
    return listed || paired ? { ok: true, value: nodeId } : { ok: false, error: `no node ${nodeId}` };
  }

  share(nodeId: string, userId: string): PairingResult<PairedNode> {
    return this.changeShares(nodeId, () => this.deps.store.share(nodeId, userId));
  }

  unshare(nodeId: string, userId: string): PairingResult<PairedNode> {
    return this.changeShares(nodeId, () => this.deps.store.unshare(nodeId, userId));
  }

  private changeShares(nodeId: string, change: () => void): PairingResult<PairedNode> {
    const { store, registry } = this.deps;
    if (!store.get(nodeId)) return { ok: false, error: `${nodeId} is not a paired node` };
    change();
    const node = store.get(nodeId) as PairedNode;
    registry?.updatePairing(node);
    return { ok: true, value: node };
  }
}
