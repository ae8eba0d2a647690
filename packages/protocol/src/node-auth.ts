// What a paired node signs to prove its key. Crypto lives in the apps (node:crypto, Ed25519); the
// bytes signed are defined once here so both sides and the tests agree on them.

const DOMAIN = "phonework-node-auth/v2";

/**
 * The HTTP header a host names its node id in when it opens the WebSocket. A router that takes
 * keys looks the id up before the upgrade (paired, or with a join code waiting), so a stranger is
 * refused with 401 before it costs a socket; the `register` frame must then name the same id.
 */
export const NODE_ID_HEADER = "x-phonework-node";

/**
 * The text signed in the handshake. The domain tag keeps the signature from meaning anything
 * anywhere else; the node id and the key bind the proof to this identity, the nonce to this
 * connection (a recorded handshake cannot be replayed on another).
 */
export function nodeAuthPayload(nonce: string, nodeId: string, publicKey: string): string {
  return `${DOMAIN}\n${nonce}\n${nodeId}\n${publicKey}`;
}

/**
 * A join code names the node it pairs: `home-pc:K7QX-M2PD-R9TF-4HNB`. The host learns its node id
 * from the code, so the person pairing types one thing; only the part after the last ':' is secret.
 */
export function parseJoinCode(code: string): { nodeId: string; secret: string } | undefined {
  const match = /^([A-Za-z0-9._-]{1,64}):([A-Z0-9]{4}(?:-[A-Z0-9]{4}){3})$/.exec(code.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return { nodeId: match[1], secret: match[2] };
}
