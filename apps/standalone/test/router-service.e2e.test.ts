import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { CleanupScope, connectFakeNode, type SpawnedProcess, spawnApp } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";

// `pnpm router` as a service runs it: stdin empty (systemd, nohup, `docker run -d`), stopped by a
// signal, its log level changed with SIGHUP. Exit 0 only for a requested stop.

const SECRET = "service-secret";
const scope = new CleanupScope();
afterEach(() => scope.run());
const tempDir = () => scope.tempDir();

/** A router on loopback with no chat configured; `env` adds or unsets keys. */
function spawnRouter(env: Record<string, string | undefined> = {}, args: string[] = []): SpawnedProcess {
  const router = spawnApp(
    "router",
    {
      ROUTER_SECRET: SECRET,
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: "0",
      DATA_DIR: tempDir(),
      LOG_LEVEL: "info",
      // Whatever the shell running the tests has set: these runs decide for themselves.
      CHAT: undefined,
      FEISHU_APP_ID: undefined,
      FEISHU_APP_SECRET: undefined,
      PHONEWORK_CONFIG: undefined,
      ...env,
    },
    args,
  );
  scope.add(() => router.kill("SIGKILL"));
  return router;
}

async function nodeUrlOf(router: SpawnedProcess): Promise<string> {
  const [, url] = await router.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  return `${(url ?? "").replace("http", "ws")}/ws/node`;
}

/** A host registering proves the router is up and serving. */
async function registerNode(nodeUrl: string, nodeId: string) {
  const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
  scope.add(() => node.close());
  return node.register({ node_id: nodeId, display_name: nodeId });
}

describe("pnpm router as a service", () => {
  it("no chat configured and stdin at end of input: runs headless, says how to chat, hosts register; SIGTERM exits 0", async () => {
    const router = spawnRouter();
    router.endInput();
    const nodeUrl = await nodeUrlOf(router);
    const [line] = await router.waitForStderr(/.*"msg":"no chat: the router runs headless.*/);
    expect(JSON.parse(line)).toMatchObject({ level: 40, CHAT: "auto" });
    expect(line).toContain("FEISHU_APP_ID and FEISHU_APP_SECRET, or CHAT=terminal");

    expect(await registerNode(nodeUrl, "home-pc")).toMatchObject({ type: "register_ok" });
    await router.waitForStderr(/"nodeId":"home-pc".*"msg":"node registered"/);
    expect(router.child.exitCode).toBeNull();
    expect(router.stdout()).toBe("");

    router.kill("SIGTERM");
    expect(await router.exited).toEqual({ code: 0, signal: null });
    expect(router.stderr()).toMatch(/"reason":"SIGTERM".*"msg":"stopping router"/);
  });

  it("CHAT=terminal with piped input: /nodes is answered, then end of input exits 0", async () => {
    const router = spawnRouter({ CHAT: "terminal" });
    await nodeUrlOf(router);
    router.writeLine("/nodes");
    router.endInput();
    expect(await router.exited).toEqual({ code: 0, signal: null });
    expect(router.stdout()).toContain("No nodes are serving you yet.");
    expect(router.stderr()).toMatch(/"reason":"end of input".*"msg":"stopping router"/);
    expect(router.stderr()).not.toContain("headless");
  });

  it("port already in use: exits 1 with one line naming the address and what to change", async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    scope.add(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const address = taken.address();
    const port = typeof address === "object" && address ? address.port : 0;

    const router = spawnRouter({ ROUTER_PORT: String(port) });
    expect(await router.exited).toEqual({ code: 1, signal: null });
    expect(router.stderr()).toContain(
      `phonework: router cannot listen on 127.0.0.1:${port} (EADDRINUSE): another process is using that port; stop it or set ROUTER_PORT\n`,
    );
    expect(router.stderr()).not.toMatch(/\n\s+at /); // a line, not a stack trace
  });

  it("SIGHUP: LOG_LEVEL changed in the config file applies at once, without a restart", async () => {
    const file = join(tempDir(), "router.yaml");
    writeFileSync(file, "LOG_LEVEL: info\n");
    const router = spawnRouter({ LOG_LEVEL: undefined }, ["--config", file]);
    const nodeUrl = await nodeUrlOf(router);

    writeFileSync(file, "LOG_LEVEL: debug\n");
    router.kill("SIGHUP");
    const [debugLine] = await router.waitForStderr(/.*"msg":"SIGHUP: log level now debug".*/);
    expect(JSON.parse(debugLine)).toMatchObject({ level: 30, from: "info", to: "debug" });

    // Quieter: a host registering is no longer logged (child loggers follow the root's level).
    writeFileSync(file, "LOG_LEVEL: warn\n");
    router.kill("SIGHUP");
    await router.waitForStderr(/"msg":"SIGHUP: log level now warn"/);
    expect(await registerNode(nodeUrl, "quiet-pc")).toMatchObject({ type: "register_ok" });
    // Anything logged for that registration precedes this warning on the same stream.
    writeFileSync(file, "LOG_LEVEL: [not, a, level]\n");
    router.kill("SIGHUP");
    await router.waitForStderr(/"msg":"SIGHUP: config not reloaded/);
    expect(router.stderr()).not.toContain('"nodeId":"quiet-pc"');

    router.kill("SIGTERM");
    expect((await router.exited).code).toBe(0);
  });

  it("SIGHUP with a config file that is now invalid: one warning naming the key, the router stays up", async () => {
    const file = join(tempDir(), "router.yaml");
    writeFileSync(file, "LOG_LEVEL: info\n");
    const router = spawnRouter({ LOG_LEVEL: undefined }, ["--config", file]);
    const nodeUrl = await nodeUrlOf(router);

    writeFileSync(file, "LOG_LEVEL: loud\n");
    router.kill("SIGHUP");
    const [line] = await router.waitForStderr(/.*"msg":"SIGHUP: config not reloaded.*/);
    expect(JSON.parse(line)).toMatchObject({
      level: 40,
      logLevel: "info",
      problem: expect.stringContaining("LOG_LEVEL: must be one of"),
    });

    expect(await registerNode(nodeUrl, "still-here")).toMatchObject({ type: "register_ok" });
    await router.waitForStderr(/"nodeId":"still-here".*"msg":"node registered"/);
    router.kill("SIGTERM");
    expect((await router.exited).code).toBe(0);
  });
});
