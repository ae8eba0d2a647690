import { existsSync } from "node:fs";
import {
  identityPath,
  type NodeIdentity,
  type ProbeOutcome,
  probeRouter,
  type RouterTls,
  resolveIdentity,
} from "@phonework/host";
import { type Check, fail, ok, oneLine, skipped, warn } from "./check.ts";

// Would the router let this host in? A dry handshake (`register` with `probe: true`): the router
// checks the key or the shared secret and answers, registering nothing, so a running host with
// the same key keeps its connection. Which key is decided as the host decides it.

const TITLE = "node key";

const pairFix = (nodeId: string) =>
  `ask an admin for a join code (/pair ${nodeId} in chat, or \`phonework pair ${nodeId}\` on the router) and run phonework host --join <code>`;

export interface NodeKeySettings {
  DATA_DIR: string;
  NODE_ID: string;
  nodeIdExplicit: boolean;
  JOIN_CODE?: string | undefined;
  ROUTER_SECRET?: string | undefined;
}

/** What the dry handshake presents, or the line that says why there is none. */
export type Credentials =
  | { ok: true; nodeId: string; identity: NodeIdentity | undefined; secret: string | undefined }
  | { ok: false; check: Check };

/** Local only (works --offline): the saved key, a join code still to use, or the shared secret. */
export function hostCredentials(config: NodeKeySettings): Credentials {
  const keyFile = identityPath(config.DATA_DIR);
  if (!config.JOIN_CODE && !config.ROUTER_SECRET && !existsSync(keyFile))
    return {
      ok: false,
      check: fail(TITLE, `not paired yet (no key in ${keyFile}, no JOIN_CODE)`, pairFix(config.NODE_ID)),
    };
  let choice: ReturnType<typeof resolveIdentity>;
  try {
    choice = resolveIdentity(config);
  } catch (error) {
    return { ok: false, check: fail(TITLE, oneLine((error as Error).message)) };
  }
  if (choice.identity?.joinCode !== undefined)
    return {
      ok: false,
      check: warn(
        TITLE,
        `not paired yet: JOIN_CODE pairs node ${choice.nodeId} when the host starts (not tried here: a join code works once)`,
      ),
    };
  return { ok: true, nodeId: choice.nodeId, identity: choice.identity, secret: config.ROUTER_SECRET };
}

export async function checkNodeKey(
  credentials: Extract<Credentials, { ok: true }>,
  options: { url: string; tls: RouterTls; timeoutMs: number; probe?: typeof probeRouter },
): Promise<Check> {
  const outcome = await (options.probe ?? probeRouter)({
    url: options.url,
    nodeId: credentials.nodeId,
    secret: credentials.secret,
    identity: credentials.identity,
    tls: options.tls,
    timeoutMs: options.timeoutMs,
  });
  return judge(outcome, credentials, options);
}

/** Offline: say which key would be used, and that it was not tried. */
export function untriedNodeKey(credentials: Extract<Credentials, { ok: true }>, why: string): Check {
  const { detail } = presented(credentials);
  return skipped(TITLE, `${why}; would present ${detail}`);
}

function presented(credentials: Extract<Credentials, { ok: true }>): { detail: string; fix: string } {
  return credentials.identity
    ? { detail: `node ${credentials.nodeId}'s saved key`, fix: pairFix(credentials.nodeId) }
    : {
        detail: `ROUTER_SECRET as node ${credentials.nodeId}`,
        fix: "use the router's ROUTER_SECRET (only a router on this machine takes one) and a NODE_ID no paired node has, or pair this host with a join code",
      };
}

function judge(
  outcome: ProbeOutcome,
  credentials: Extract<Credentials, { ok: true }>,
  options: { url: string; timeoutMs: number },
): Check {
  const { detail, fix } = presented(credentials);
  switch (outcome.kind) {
    case "accepted":
      return ok(TITLE, `the router accepts ${detail} (dry handshake; nothing registered)`);
    case "refused":
      if (outcome.code === "UNSUPPORTED_VERSION")
        return fail(
          TITLE,
          `protocol versions do not match: ${outcome.reason}`,
          "run the same PhoneWork version on the router and this host",
        );
      if (outcome.code === "UNAUTHORIZED")
        return fail(TITLE, `the router refuses ${detail}: ${outcome.reason}`, fix);
      return fail(TITLE, `the router refused the dry handshake (${outcome.code}: ${outcome.reason})`);
    case "http-refused":
      // With a key, 401 comes before the upgrade when the router expects no node of that id (not
      // paired, revoked, no join code waiting); the key itself is judged inside the socket.
      if (outcome.status === 401 && credentials.identity)
        return fail(
          TITLE,
          `the router refuses ${detail}: it has no node ${credentials.nodeId} paired or joining (HTTP 401)`,
          fix,
        );
      if (outcome.status === 401)
        return fail(
          TITLE,
          "the router refuses ROUTER_SECRET (HTTP 401)",
          "set ROUTER_SECRET to the router's own (only a router bound to loopback takes one), or unset it and pair this host with a join code",
        );
      if (outcome.status === 404)
        return fail(
          TITLE,
          "the router answered 404: ROUTER_URL must end with /ws/node",
          "set ROUTER_URL to wss://<router>/ws/node",
        );
      if (outcome.status === 503)
        return warn(TITLE, "the router is busy or restarting (HTTP 503)", "run doctor again in a moment");
      return fail(
        TITLE,
        `the upgrade to WebSocket was refused (HTTP ${outcome.status})`,
        "check ROUTER_URL, and that a proxy in front passes WebSocket upgrades",
      );
    case "pin-mismatch":
      return fail(
        TITLE,
        `the router's certificate (SHA-256 ${outcome.seen}) does not match ROUTER_CERT_SHA256`,
      );
    case "unreachable":
      return fail(TITLE, `cannot connect (${outcome.code ?? outcome.message})`, "check ROUTER_URL");
    case "no-challenge":
      return fail(
        TITLE,
        `${options.url} sent no challenge in ${options.timeoutMs / 1000} s: not a PhoneWork router of this version`,
        "check that ROUTER_URL is the router's /ws/node",
      );
    case "no-probe":
      return warn(
        TITLE,
        "not tried: the router is older and has no dry handshake (a real one would replace a running host)",
        "upgrade the router",
      );
    case "no-answer":
      return fail(TITLE, `the router did not answer the dry handshake in ${options.timeoutMs / 1000} s`);
    case "closed":
      return fail(TITLE, `the router closed the connection (${outcome.code} ${outcome.reason})`.trim());
  }
}
