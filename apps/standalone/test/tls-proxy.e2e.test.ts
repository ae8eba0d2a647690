import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import {
  CleanupScope,
  repoRoot,
  type SpawnedProcess,
  spawnApp,
  spawnHostApp,
  spawnProcess,
  tlsFixture,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// docs/deploy-vps.md's TLS recipe, run: the shipped reverse-proxy configs (deploy/nginx/phonework.conf,
// deploy/caddy/Caddyfile), rendered with only the domain, the port, the certificate and the
// upstream swapped, in front of a real `phonework router` on 127.0.0.1; a real `phonework host`
// pairs through `wss://` via the proxy, trusting the test CA (ROUTER_CA_FILE), and registers, and
// the admin's /health through the proxy shows it online. `.ci/run` installs Debian's nginx and
// caddy; where one is missing the test fails saying so, unless PHONEWORK_SKIP_PROXY_TESTS=1.

const ADMIN_TOKEN = "proxy-admin-token-0123456789";
const scope = new CleanupScope();
let router: SpawnedProcess;
let routerData = "";
let routerPort = 0;

/** An executable on PATH or in the sbin directories (nginx lives in /usr/sbin). */
function findProgram(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin", "/sbin"];
  return dirs.map((dir) => join(dir, name)).find((path) => path && existsSync(path));
}

function requireProgram(name: string): string {
  const path = findProgram(name);
  if (!path)
    throw new Error(
      `${name} is not installed, so the TLS recipe cannot be tested: apt-get install ${name} (.ci/run does), ` +
        "or set PHONEWORK_SKIP_PROXY_TESTS=1 to skip this test",
    );
  return path;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * A proxy stopped at cleanup with SIGTERM (nginx's fast shutdown: its master waits for its workers),
 * and SIGKILL only if it has not exited within 3 s: a killed nginx master leaves its workers behind.
 */
function stopAtCleanup(proxy: SpawnedProcess): void {
  scope.add(async () => {
    proxy.kill("SIGTERM");
    if ((await proxy.exitedWithin(3000)) === "running") proxy.kill("SIGKILL");
  });
}

/** A proxy started, stopped at cleanup, once it answers /health over HTTPS on `port`. */
async function startProxy(name: string, proxy: SpawnedProcess, port: number): Promise<void> {
  stopAtCleanup(proxy);
  await waitFor(
    () =>
      httpsGet(`https://localhost:${port}/health`)
        .then((response) => response.status === 200)
        .catch(() => false),
    { timeoutMs: 5000, message: `${name} answering on ${port} (${proxy.stderr().slice(-800)})` },
  );
}

/** `text` with each pattern replaced once; a pattern the shipped file no longer has fails the test. */
function render(text: string, swaps: Array<[RegExp, string]>): string {
  return swaps.reduce((rendered, [pattern, replacement]) => {
    expect(rendered, `the shipped config has ${pattern}`).toMatch(pattern);
    return rendered.replace(pattern, replacement);
  }, text);
}

/** GET over HTTPS, trusting the test CA. */
function httpsGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: readFileSync(tlsFixture("ca.pem")), headers }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A join code from `phonework pair`, beside the running router. */
async function joinCode(name: string): Promise<string> {
  const pair = scope.track(spawnApp("pair", { DATA_DIR: routerData, LOG_LEVEL: "warn" }, [name]));
  expect((await pair.exited).code, pair.stderr()).toBe(0);
  return pair.stdout().trim().split("\n").at(-1) ?? "";
}

/** A host paired through the proxy at `port`: it registers, and the router's /health (through the proxy) shows it. */
async function pairThroughProxy(port: number, name: string): Promise<void> {
  const code = await joinCode(name);
  const { host, cleanup } = spawnHostApp({
    routerUrl: `wss://localhost:${port}/ws/node`,
    joinCode: code,
    env: { ROUTER_CA_FILE: tlsFixture("ca.pem") },
  });
  scope.add(cleanup);
  await host.waitForStderr(/paired with the router/);
  await host.waitForStderr(/registered with router/);
  const health = await waitFor(
    async () => {
      const { status, body } = await httpsGet(`https://localhost:${port}/health`, {
        Authorization: `Bearer ${ADMIN_TOKEN}`,
      });
      const nodes =
        status === 200
          ? (JSON.parse(body) as { nodes: Array<{ node_id: string; status: string }> }).nodes
          : [];
      return nodes.find((node) => node.node_id === name && node.status === "online");
    },
    { timeoutMs: 5000, message: `${name} online in /health through the proxy` },
  );
  expect(health).toBeTruthy();
}

const skip = process.env.PHONEWORK_SKIP_PROXY_TESTS === "1";

describe.skipIf(skip)(
  "the TLS recipe: a real reverse proxy in front of a real router, a host paired through it",
  () => {
    beforeAll(async () => {
      routerData = scope.tempDir();
      router = scope.track(
        spawnApp("router", {
          ROUTER_SECRET: "",
          ROUTER_HOST: "127.0.0.1",
          ROUTER_PORT: "0",
          DATA_DIR: routerData,
          CHAT: "none",
          ADMIN_TOKEN,
          TRUST_PROXY: "127.0.0.1",
          LOG_LEVEL: "info",
        }),
      );
      const [, port] = await router.waitForStderr(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/);
      routerPort = Number(port);
    });

    afterAll(() => scope.run());

    it("nginx (deploy/nginx/phonework.conf) passes the host's WebSocket upgrade and HTTPS to the router", async () => {
      const nginx = requireProgram("nginx");
      const prefix = scope.tempDir();
      mkdirSync(join(prefix, "logs"));
      const port = await freePort();
      const site = render(readFileSync(join(repoRoot, "deploy/nginx/phonework.conf"), "utf8"), [
        [/listen 443 ssl;/, `listen 127.0.0.1:${port} ssl;`],
        [/server_name router\.example\.com;/, "server_name localhost;"],
        [/ssl_certificate +\S+;/, `ssl_certificate ${tlsFixture("router.pem")};`],
        [/ssl_certificate_key +\S+;/, `ssl_certificate_key ${tlsFixture("router.key")};`],
        [/proxy_pass http:\/\/127\.0\.0\.1:8000;/, `proxy_pass http://127.0.0.1:${routerPort};`],
      ]);
      writeFileSync(join(prefix, "phonework.conf"), site);
      // The rest of an nginx.conf, everything under the temp prefix; as root, workers stay root (the
      // prefix is private to this user).
      writeFileSync(
        join(prefix, "nginx.conf"),
        [
          process.getuid?.() === 0 ? "user root;" : "",
          `pid ${join(prefix, "nginx.pid")};`,
          `error_log ${join(prefix, "logs", "error.log")} warn;`,
          "events { worker_connections 64; }",
          "http {",
          "  access_log off;",
          ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
            (kind) => `  ${kind}_temp_path ${join(prefix, `${kind}_temp`)};`,
          ),
          `  include ${join(prefix, "phonework.conf")};`,
          "}",
          "",
        ].join("\n"),
      );
      const args = ["-p", prefix, "-c", join(prefix, "nginx.conf"), "-e", join(prefix, "logs", "error.log")];
      const test = spawnSync(nginx, [...args, "-t"], { encoding: "utf8" });
      expect(test.status, test.stderr).toBe(0);
      await startProxy("nginx", spawnProcess(nginx, [...args, "-g", "daemon off;"]), port);
      await pairThroughProxy(port, "nginx-pc");
    });

    it("Caddy (deploy/caddy/Caddyfile) does the same", async () => {
      const caddy = requireProgram("caddy");
      const home = scope.tempDir();
      const port = await freePort();
      const site = render(readFileSync(join(repoRoot, "deploy/caddy/Caddyfile"), "utf8"), [
        [
          /^router\.example\.com \{$/m,
          `https://localhost:${port} {\n\ttls ${tlsFixture("router.pem")} ${tlsFixture("router.key")}`,
        ],
        [/reverse_proxy 127\.0\.0\.1:8000/, `reverse_proxy 127.0.0.1:${routerPort}`],
      ]);
      // Global options for a test: no admin endpoint, no HTTP->HTTPS redirect server on port 80.
      const config = join(home, "Caddyfile");
      writeFileSync(
        config,
        `{\n\tadmin off\n\tauto_https disable_redirects\n\tstorage file_system ${join(home, "data")}\n}\n\n${site}`,
      );
      const env = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data") };
      await startProxy(
        "caddy",
        spawnProcess(caddy, ["run", "--config", config, "--adapter", "caddyfile"], { env }),
        port,
      );
      await pairThroughProxy(port, "caddy-pc");
    });
  },
);
