import { parseJoinCode } from "@phonework/protocol";
import { ConfigError, StartupError } from "@phonework/runtime";
import {
  identityPath,
  joinCodeDigest,
  loadIdentity,
  type NodeIdentity,
  newIdentity,
} from "./node-identity.ts";

// Which node this host is, before anything starts: the node a join code names, else the identity
// saved in DATA_DIR, else (shared secret, a router on this machine) NODE_ID or the machine's name.

export interface IdentityChoice {
  nodeId: string;
  /** Undefined: the host presents ROUTER_SECRET instead of a key. */
  identity: NodeIdentity | undefined;
  /** A new join code for a node this DATA_DIR had a key for: said once at start. */
  replacing?: string;
}

export interface IdentityConfig {
  DATA_DIR: string;
  NODE_ID: string;
  /** NODE_ID was set by the user (not the machine's name). */
  nodeIdExplicit: boolean;
  JOIN_CODE?: string | undefined;
  ROUTER_SECRET?: string | undefined;
}

export function resolveIdentity(config: IdentityConfig): IdentityChoice {
  const saved = loadSaved(config.DATA_DIR);
  const mismatch = (nodeId: string, why: string) =>
    new ConfigError(
      `invalid configuration:\n  NODE_ID: is ${config.NODE_ID}, but ${why} ${nodeId}; unset NODE_ID or use another DATA_DIR`,
    );
  if (config.JOIN_CODE) {
    const code = parseJoinCode(config.JOIN_CODE);
    if (!code)
      throw new ConfigError(
        "invalid configuration:\n  JOIN_CODE: is not a join code (name:XXXX-XXXX-XXXX-XXXX)",
      );
    if (config.nodeIdExplicit && config.NODE_ID !== code.nodeId)
      throw mismatch(code.nodeId, "the join code is for node");
    // The code this key was paired with, left in a service file or a command line: already joined.
    if (saved?.nodeId === code.nodeId && saved.pairedWith === joinCodeDigest(config.JOIN_CODE))
      return { nodeId: saved.nodeId, identity: saved };
    // A new code always wins (the node was revoked, or the router forgot it): a new key, which
    // replaces the saved one once the router accepts it.
    const identity = newIdentity(config.DATA_DIR, code.nodeId, config.JOIN_CODE);
    if (!saved) return { nodeId: code.nodeId, identity };
    return {
      nodeId: code.nodeId,
      identity,
      replacing: `pairing as ${code.nodeId} with the join code given: the key saved for ${saved.nodeId} is replaced once the router accepts it (kept as ${identityPath(config.DATA_DIR)}.bak)`,
    };
  }
  if (saved) {
    if (config.nodeIdExplicit && config.NODE_ID !== saved.nodeId)
      throw mismatch(saved.nodeId, "this DATA_DIR is paired as node");
    return { nodeId: saved.nodeId, identity: saved };
  }
  // A configuration problem (exit 2): the key that is missing is JOIN_CODE.
  if (!config.ROUTER_SECRET)
    throw new ConfigError(
      "this host is not paired with a router (no JOIN_CODE, no saved key): ask an admin for a join code " +
        "(/pair <name> in chat, or `phonework pair <name>` on the router), then start it once with " +
        "`phonework host --join <code>`",
    );
  return { nodeId: config.NODE_ID, identity: undefined };
}

function loadSaved(dataDir: string): NodeIdentity | undefined {
  try {
    return loadIdentity(dataDir);
  } catch (error) {
    throw new StartupError(
      `the node key in ${dataDir}/host/identity.json cannot be read (${(error as Error).message}); ` +
        "move it aside and pair this host again",
    );
  }
}
