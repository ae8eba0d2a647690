import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { newIdentity } from "@phonework/host";
import { startFakeOpenAI, tlsFixture, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  hostEnv,
  runDoctorIn,
  scope,
  startHost,
  startPairedHost,
  startRouter,
} from "./doctor-support.ts";

// `phonework doctor host` against a real router on loopback: reachability, TLS as the host trusts
// it, the node key in a dry handshake that leaves a running host alone, and the model endpoint.

const PAIR_FIX = "ask an admin for a join code (/pair home-pc";

describe("doctor host: the router link", () => {
  it("a paired key is accepted in a dry handshake while the host holding it stays connected and serving", async () => {
    const router = await startRouter();
    const env = hostEnv();
    const host = await startPairedHost(router, "home-pc", env);
    const states: string[] = [];
    host.link.onStateChange((state) => states.push(state));

    const run = await runDoctorIn("host", { ...env, ROUTER_URL: router.nodeUrl });
    expect(run.line("router")).toMatch(/^✅ router: 127\.0\.0\.1:\d+ reachable/);
    expect(run.line("router TLS")).toBe("✅ router TLS: not used: ws:// to this machine");
    expect(run.line("node key")).toBe(
      "✅ node key: the router accepts node home-pc's saved key (dry handshake; nothing registered)",
    );

    router.chat.receive({ userId: ADMIN, text: "still there?" });
    await waitFor(() => router.chat.textsFor(ADMIN).includes("home-pc: still there?"));
    expect(states).toEqual([]);
    expect(host.link.state).toBe("registered");
  });

  it("a key the router does not know is ❌ with how to pair; no key at all is ❌ 'not paired yet'", async () => {
    const router = await startRouter();
    const env = hostEnv();
    newIdentity(env.DATA_DIR ?? "", "home-pc", "unused").save(); // a key this router never paired
    const refused = await runDoctorIn("host", { ...env, ROUTER_URL: router.nodeUrl });
    expect(refused.line("node key")).toContain("❌ node key: the router refuses node home-pc's saved key");
    expect(refused.line("node key")).toContain(`→ ${PAIR_FIX}`);
    expect(refused.line("node key")).toContain("and run phonework host --join <code>");

    const fresh = hostEnv();
    const unpaired = await runDoctorIn("host", { ...fresh, ROUTER_URL: router.nodeUrl, NODE_ID: "home-pc" });
    expect(unpaired.line("node key")).toMatch(
      /^❌ node key: not paired yet \(no key in .*, no JOIN_CODE\) → /,
    );
    expect(unpaired.line("node key")).toContain(PAIR_FIX);
  });

  it("a host with the shared secret of a loopback router passes; a wrong secret is ❌ (HTTP 401)", async () => {
    const router = await startRouter({ ROUTER_SECRET: "loopback-secret-123" });
    const env = hostEnv();
    const host = await startHost(router.nodeUrl, env, { nodeId: "home-pc", secret: "loopback-secret-123" });
    const states: string[] = [];
    host.link.onStateChange((state) => states.push(state));

    const good = await runDoctorIn("host", {
      ...env,
      ROUTER_URL: router.nodeUrl,
      ROUTER_SECRET: "loopback-secret-123",
      NODE_ID: "home-pc",
    });
    expect(good.line("node key")).toBe(
      "✅ node key: the router accepts ROUTER_SECRET as node home-pc (dry handshake; nothing registered)",
    );
    expect(states).toEqual([]);

    const bad = await runDoctorIn("host", {
      ...env,
      ROUTER_URL: router.nodeUrl,
      ROUTER_SECRET: "not-the-secret-456",
      NODE_ID: "home-pc",
    });
    expect(bad.line("node key")).toContain(
      "❌ node key: the router refuses ROUTER_SECRET (HTTP 401) → set ROUTER_SECRET to the router's own",
    );
    expect(bad.output).not.toContain("not-the-secret-456");
    expect(bad.failures).toBe(1);
  });

  it("a router that is not there is ❌ once; TLS and the key are skipped, not failed", async () => {
    const router = await startRouter();
    const env = hostEnv();
    await startPairedHost(router, "home-pc", env);
    const closedPort = "ws://127.0.0.1:1/ws/node";
    const run = await runDoctorIn("host", { ...env, ROUTER_URL: closedPort });
    expect(run.line("router")).toBe(
      "❌ router: nothing listens on 127.0.0.1:1 → start the router there, or correct ROUTER_URL",
    );
    expect(run.line("node key")).toBe(
      "⚠️ node key: skipped (the router is not reachable; would present node home-pc's saved key)",
    );
    expect(run.failures).toBe(1);
  });

  it("--offline contacts nothing and says so; 'not paired yet' is still found", async () => {
    const env = hostEnv({ OPENAI_API_KEY: "sk-offline-key-123" });
    const run = await runDoctorIn("host", { ...env, NODE_ID: "home-pc" }, { offline: true });
    expect(run.line("router")).toBe("⚠️ router: skipped (--offline)");
    expect(run.line("model")).toBe("⚠️ model: skipped (--offline)");
    expect(run.line("node key")).toMatch(/^❌ node key: not paired yet/);
    expect(run.failures).toBe(1);
  });
});

describe("doctor host: TLS as the host trusts it", () => {
  const tlsRouter = () =>
    startRouter({ TLS_CERT_FILE: tlsFixture("router.pem"), TLS_KEY_FILE: tlsFixture("router.key") });

  it("trusted through ROUTER_CA_FILE, or pinned by ROUTER_CERT_SHA256: ✅ and the key is tried", async () => {
    const router = await tlsRouter();
    const env = hostEnv();
    newIdentity(env.DATA_DIR ?? "", "home-pc", "unused").save();
    const viaCa = await runDoctorIn("host", {
      ...env,
      ROUTER_URL: router.nodeUrl,
      ROUTER_CA_FILE: tlsFixture("ca.pem"),
    });
    expect(viaCa.line("router TLS")).toMatch(
      /^✅ router TLS: certificate for \S+ signed by ROUTER_CA_FILE .*ca\.pem, valid until \d{4}-\d\d-\d\d$/,
    );
    expect(viaCa.line("node key")).toMatch(/^❌ node key: the router refuses/); // reached, and not paired

    const pin = createHash("sha256")
      .update(new X509Certificate(readFileSync(tlsFixture("router.pem"))).raw)
      .digest("hex");
    const pinned = await runDoctorIn("host", { ...env, ROUTER_URL: router.nodeUrl, ROUTER_CERT_SHA256: pin });
    expect(pinned.line("router TLS")).toMatch(
      /^✅ router TLS: certificate for \S+ pinned by ROUTER_CERT_SHA256/,
    );
  });

  it("a self-signed router without ROUTER_CA_FILE, or another pin: ❌ saying how to trust it", async () => {
    const router = await tlsRouter();
    const env = hostEnv();
    newIdentity(env.DATA_DIR ?? "", "home-pc", "unused").save();
    const untrusted = await runDoctorIn("host", { ...env, ROUTER_URL: router.nodeUrl });
    expect(untrusted.line("router TLS")).toMatch(/^❌ router TLS: the router's certificate was refused \(/);
    expect(untrusted.line("router TLS")).toContain(
      "set ROUTER_CA_FILE to its CA, or pin it with ROUTER_CERT_SHA256",
    );
    expect(untrusted.line("node key")).toMatch(/^⚠️ node key: skipped \(TLS failed/);

    const wrongPin = await runDoctorIn("host", {
      ...env,
      ROUTER_URL: router.nodeUrl,
      ROUTER_CERT_SHA256: "ab".repeat(32),
    });
    expect(wrongPin.line("router TLS")).toMatch(
      /^❌ router TLS: the certificate's SHA-256 is [0-9a-f]{64}, not/,
    );
  });
});

describe("doctor host: the model endpoint", () => {
  it("one tiny request: ✅ when it answers, ❌ naming the key on 401, ⚠️ without a key", async () => {
    const model = await startFakeOpenAI({ apiKey: "sk-right-key-123" });
    scope.add(() => model.close());
    const env = hostEnv({ OPENAI_BASE_URL: model.url, OPENAI_MODEL: "tiny-model" });
    const good = await runDoctorIn("host", { ...env, OPENAI_API_KEY: "sk-right-key-123" });
    expect(good.line("model")).toMatch(
      new RegExp(`^✅ model: tiny-model at ${model.url} answered in \\d+ ms$`),
    );
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.model).toBe("tiny-model");

    const wrong = await runDoctorIn("host", { ...env, OPENAI_API_KEY: "sk-wrong-key-456" });
    expect(wrong.line("model")).toMatch(/^❌ model: .* refused OPENAI_API_KEY \(HTTP 401/);
    expect(wrong.output).not.toContain("sk-wrong-key-456");

    const none = await runDoctorIn("host", env);
    expect(none.line("model")).toMatch(/^⚠️ model: no model configured: only commands work/);
    expect(model.requests).toHaveLength(1); // the fake records only the requests it authorized
  });
});
