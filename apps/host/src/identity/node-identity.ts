import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "@phonework/runtime";
import { z } from "zod";

// This host's identity with its router: a node id and an Ed25519 key pair. The private key never
// leaves DATA_DIR (mode 0600); the router keeps the public key from the day the host joined.

export interface NodeIdentity {
  readonly nodeId: string;
  /** SPKI DER, base64: what the router pairs. */
  readonly publicKey: string;
  /** base64 Ed25519 signature of `payload`. */
  sign(payload: string): string;
  /** Set until the router accepts the join code; then the identity is saved and this cleared. */
  joinCode: string | undefined;
  /** Writes the key to DATA_DIR (after the router accepted it). */
  save(): void;
}

const IdentityFile = z.object({
  version: z.literal(1),
  node_id: z.string().min(1),
  public_key: z.string().min(1),
  private_key: z.string().min(1),
});

export const identityPath = (dataDir: string) => join(dataDir, "host", "identity.json");

function identityOf(nodeId: string, privateKey: KeyObject, path: string, joinCode?: string): NodeIdentity {
  const publicKey = createPublicKey(privateKey).export({ type: "spki", format: "der" }).toString("base64");
  return {
    nodeId,
    publicKey,
    joinCode,
    sign: (payload) => sign(null, Buffer.from(payload), privateKey).toString("base64"),
    save() {
      const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
      const file = { version: 1, node_id: nodeId, public_key: publicKey, private_key: pem };
      writePrivateFile(path, `${JSON.stringify(file, null, 2)}\n`);
    },
  };
}

/** A fresh key pair for joining with `joinCode` (saved only once the router accepts it). */
export function newIdentity(dataDir: string, nodeId: string, joinCode: string): NodeIdentity {
  const { privateKey } = generateKeyPairSync("ed25519");
  return identityOf(nodeId, privateKey, identityPath(dataDir), joinCode);
}

/** The saved identity, or undefined if this DATA_DIR has never joined a router. */
export function loadIdentity(dataDir: string): NodeIdentity | undefined {
  const path = identityPath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const file = IdentityFile.parse(JSON.parse(text));
  return identityOf(file.node_id, createPrivateKey(file.private_key), path);
}
