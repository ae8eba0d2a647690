import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
import { nodeAuthPayload } from "../packages/protocol/src/index.ts";
import type { SqliteDatabase } from "../packages/runtime/src/index.ts";

// The Ed25519 key of a simulated paired host, derived from its node id: the simulated hosts (one
// process) and the router's seeded node table (another) agree on it without passing 10,000 keys.

/** PKCS#8 DER of an Ed25519 private key, less its 32-byte seed. */
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface SimKey {
  privateKey: KeyObject;
  /** SPKI DER, base64, as the router stores it. */
  publicKey: string;
}

export function simKey(nodeId: string): SimKey {
  const seed = createHash("sha256").update(`phonework-bench-sim/${nodeId}`).digest();
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const publicKey = createPublicKey(privateKey).export({ type: "spki", format: "der" }).toString("base64");
  return { privateKey, publicKey };
}

/** The `auth` field of a keyed `register`: the router's nonce signed, as apps/host does. */
export function signedAuth(key: SimKey, nonce: string, nodeId: string) {
  const payload = Buffer.from(nodeAuthPayload(nonce, nodeId, key.publicKey));
  return { public_key: key.publicKey, signature: sign(null, payload, key.privateKey).toString("base64") };
}

/** The owner a simulated paired host is seeded with: the memory-chat user it serves (registrationFor). */
export const simOwner = (nodeId: string) => `memory:user-${nodeId}`;

/** Pairs sim-0 … sim-(count-1) in router.db, each with its own key, as `/pair` and a join would. */
export function seedPairedHosts(db: SqliteDatabase, count: number): void {
  // A restarted router finds them already paired: deriving 10,000 keys again would lengthen the
  // restart the storm measures (the hosts meanwhile back off against a closed port).
  const last = `sim-${count - 1}`;
  if (db.prepare("SELECT 1 FROM nodes WHERE node_id = ?").get(last)) return;
  const insert = db.prepare(
    "INSERT OR IGNORE INTO nodes (node_id, display_name, public_key, owner, paired_at) VALUES (?, ?, ?, ?, ?)",
  );
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const nodeId = `sim-${i}`;
      insert.run(nodeId, nodeId, simKey(nodeId).publicKey, simOwner(nodeId), now);
    }
  })();
}
