import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from "node:crypto";
import { existsSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
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
  /** The SHA-256 of the join code this key was paired with (saved keys since they recorded it). */
  readonly pairedWith: string | undefined;
  /** Writes the key to DATA_DIR (after the router accepted it); a key saved before moves to `.bak`. */
  save(): void;
}

const IdentityFile = z.object({
  version: z.literal(1),
  node_id: z.string().min(1),
  public_key: z.string().min(1),
  private_key: z.string().min(1),
  /** Which join code paired this key: the same code given again means "already paired". */
  join_code_sha256: z.string().optional(),
});

/** How a join code is remembered: never the code itself. */
export const joinCodeDigest = (code: string) => createHash("sha256").update(code.trim()).digest("hex");

export const identityPath = (dataDir: string) => join(dataDir, "host", "identity.json");

function identityOf(
  nodeId: string,
  privateKey: KeyObject,
  path: string,
  paired: { joinCode?: string; pairedWith?: string | undefined },
): NodeIdentity {
  const publicKey = createPublicKey(privateKey).export({ type: "spki", format: "der" }).toString("base64");
  const identity: NodeIdentity = {
    nodeId,
    publicKey,
    joinCode: paired.joinCode,
    pairedWith: paired.pairedWith ?? (paired.joinCode ? joinCodeDigest(paired.joinCode) : undefined),
    sign: (payload) => sign(null, Buffer.from(payload), privateKey).toString("base64"),
    save() {
      const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
      const file = {
        version: 1,
        node_id: nodeId,
        public_key: publicKey,
        private_key: pem,
        ...(identity.pairedWith ? { join_code_sha256: identity.pairedWith } : {}),
      };
      // Paired again with a new key: the one it replaces is kept beside it, not lost.
      if (existsSync(path) && loadIdentity(dirname(dirname(path)))?.publicKey !== publicKey)
        renameSync(path, `${path}.bak`);
      writePrivateFile(path, `${JSON.stringify(file, null, 2)}\n`);
    },
  };
  return identity;
}

/** A fresh key pair for joining with `joinCode` (saved only once the router accepts it). */
export function newIdentity(dataDir: string, nodeId: string, joinCode: string): NodeIdentity {
  const { privateKey } = generateKeyPairSync("ed25519");
  return identityOf(nodeId, privateKey, identityPath(dataDir), { joinCode });
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
  return identityOf(file.node_id, createPrivateKey(file.private_key), path, {
    pairedWith: file.join_code_sha256,
  });
}
