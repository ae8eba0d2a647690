import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { createHost, type Host, HostConfigSchema, newIdentity } from "@phonework/host";
import { loadConfig } from "@phonework/runtime";
import { createTestLogger, tlsFixture, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { ADMIN, askJoinCode } from "./pairing-support.ts";
import { echoHandler, onCleanup, SECRET, startTestRouter, tempDataDir } from "./support.ts";

// The link between host and router: TLS served by the router itself, a self-signed router trusted
// through its CA or a pinned fingerprint, a certificate that does not match refused with a clear
// line, and a refused host told why once — not a stack trace every retry.

const fingerprint = (pem: string) =>
  createHash("sha256")
    .update(new X509Certificate(readFileSync(pem)).raw)
    .digest("hex");

function host(
  url: string,
  overrides: Record<string, unknown>,
  tls: { ca?: Buffer; pinSha256?: string } = {},
) {
  const config = HostConfigSchema.parse({
    ROUTER_URL: url,
    ROUTER_SECRET: SECRET,
    NODE_ID: "home-pc",
    WORKING_DIR: process.cwd(),
    DATA_DIR: tempDataDir(),
    RECONNECT_MAX_DELAY_S: 0.1,
    ...overrides,
  });
  const { logger, lines } = createTestLogger();
  const h: Host = createHost(config, { logger, handler: echoHandler("home-pc"), tls });
  h.start();
  onCleanup(() => h.stop());
  const warnings = () =>
    lines()
      .filter((line) => line.level === 40)
      .map((line) => String(line.msg));
  /** Connection attempts that failed so far: each is logged once, with the wait before the next. */
  const retries = () => lines().filter((line) => line.msg === "router link closed; reconnecting").length;
  /** Until `more` further attempts have failed after the ones so far: the refusal had its chances to repeat. */
  const retried = async (more: number) => {
    const target = retries() + more;
    await waitFor(() => retries() >= target, { message: `${more} more connection attempts` });
  };
  return { host: h, warnings, retried };
}

async function tlsRouter(cert = "router") {
  return startTestRouter({
    TLS_CERT_FILE: tlsFixture(`${cert}.pem` as "router.pem"),
    TLS_KEY_FILE: tlsFixture(`${cert}.key` as "router.key"),
  });
}

describe("TLS", () => {
  it("the router serves wss:// itself; a host trusting its CA (ROUTER_CA_FILE) connects and answers", async () => {
    const t = await tlsRouter();
    expect(t.nodeUrl).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/ws\/node$/);
    const { host: h } = host(t.nodeUrl, {}, { ca: readFileSync(tlsFixture("ca.pem")) });
    await h.ready();
    t.chat.receive({ userId: "u1", text: "over tls" });
    await waitFor(() => t.chat.textsFor("u1").includes("home-pc: over tls"));
  });

  it("a self-signed router the host has not been told to trust is refused, with one clear line", async () => {
    const t = await tlsRouter();
    const { host: h, warnings, retried } = host(t.nodeUrl, {});
    await waitFor(() => warnings().some((w) => w.startsWith("the router's TLS certificate was refused")));
    await retried(3);
    expect(h.link.state).not.toBe("registered");
    const said = warnings().filter((w) => w.startsWith("the router's TLS certificate was refused"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("set ROUTER_CA_FILE to its CA or pin it with ROUTER_CERT_SHA256");
  });

  it("a router whose certificate does not match the CA or the pin is refused; the right pin connects", async () => {
    const impostor = await tlsRouter("other");
    const withCa = host(impostor.nodeUrl, {}, { ca: readFileSync(tlsFixture("ca.pem")) });
    await waitFor(() =>
      withCa.warnings().some((w) => w.startsWith("the router's TLS certificate was refused")),
    );
    const pinned = host(
      impostor.nodeUrl,
      { NODE_ID: "pinned" },
      { pinSha256: fingerprint(tlsFixture("router.pem")) },
    );
    await waitFor(() => pinned.warnings().some((w) => w.includes("does not match ROUTER_CERT_SHA256")));
    await Promise.all([withCa.retried(2), pinned.retried(2)]);
    expect(impostor.router.registry.list()).toEqual([]);

    const real = await tlsRouter();
    const good = host(real.nodeUrl, {}, { pinSha256: fingerprint(tlsFixture("router.pem")) });
    await good.host.ready();
  });
});

describe("TLS configuration", () => {
  it("a certificate without its key, or a key without its certificate, is refused naming the missing key", () => {
    const load = (env: Record<string, string>) => () =>
      loadConfig(RouterConfigSchema, { env: { DATA_DIR: tempDataDir(), ...env } });
    expect(load({ TLS_CERT_FILE: tlsFixture("router.pem") })).toThrow(
      "TLS_KEY_FILE: is required with TLS_CERT_FILE",
    );
    expect(load({ TLS_KEY_FILE: tlsFixture("router.key") })).toThrow(
      "TLS_CERT_FILE: is required with TLS_KEY_FILE",
    );
    expect(
      load({ TLS_CERT_FILE: tlsFixture("router.pem"), TLS_KEY_FILE: tlsFixture("router.key") })().config,
    ).toMatchObject({ TLS_CERT_FILE: tlsFixture("router.pem") });
  });
});

describe("a refused host learns why, once", () => {
  it("404: ROUTER_URL must end with /ws/node", async () => {
    const t = await startTestRouter();
    const { warnings, retried } = host(t.nodeUrl.replace("/ws/node", "/ws"), {});
    await waitFor(() => warnings().length > 0);
    await retried(3);
    expect(warnings()).toEqual(["ROUTER_URL must end with /ws/node (the router answered 404)"]);
  });

  it("an unpaired key: the router refused this node's key or join code, and how to pair", async () => {
    const t = await startTestRouter({ ADMINS: ADMIN });
    const identity = newIdentity(tempDataDir(), "home-pc", "home-pc:AAAA-AAAA-AAAA-AAAA");
    identity.joinCode = undefined; // a key the router never saw
    const config = HostConfigSchema.parse({
      ROUTER_URL: t.nodeUrl,
      WORKING_DIR: process.cwd(),
      DATA_DIR: tempDataDir(),
      NODE_ID: "home-pc",
      RECONNECT_MAX_DELAY_S: 0.1,
    });
    const { logger, lines } = createTestLogger();
    const refusals: string[] = [];
    const h = createHost(config, {
      logger,
      handler: echoHandler("home-pc"),
      identity,
      onRefused: (r) => refusals.push(r),
    });
    h.start();
    onCleanup(() => h.stop());
    await waitFor(() => refusals.length >= 3);
    const warned = lines()
      .filter((line) => line.level === 40)
      .map((line) => String(line.msg));
    expect(warned).toEqual([
      "the router refused this node's key or join code (no node home-pc is paired or waiting to join); ask an admin for a join code (/pair <name> in chat, or `phonework pair <name>` on the router) and start this host with --join <code>",
    ]);
    // Paired with a code, the same host gets in.
    identity.joinCode = await askJoinCode(t, "home-pc");
    await h.ready();
    expect(t.router.registry.get("home-pc")).toMatchObject({ paired: true, status: "online" });
  });
});
