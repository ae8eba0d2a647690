import { type AddressInfo, createServer } from "node:net";
import { CleanupScope, spawnApp, startFakeOpenAI } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";

// `phonework standalone` exactly as a user runs it: the built package as a real process with piped
// stdin (package-scripts.e2e.test.ts runs it through `pnpm standalone` from the checkout).

const scope = new CleanupScope();
afterEach(() => scope.run());

function run(input: string, env: Record<string, string> = {}) {
  const child = scope.track(spawnApp("standalone", { DATA_DIR: scope.tempDir(), NODE_ID: "my-box", ...env }));
  child.child.stdin?.end(input);
  return child;
}

describe("phonework standalone", () => {
  it("printf '/nodes\\n' | phonework standalone prints the local node online and active, then exits 0", async () => {
    const child = run("/nodes\n");
    const { code } = await child.exited;
    expect(code).toBe(0);
    expect(child.stdout()).toMatch(/^Online:\n→ my-box\s+\[ACTIVE\]\s+sessions=0\s+online \d+s$/m);
  });

  it("answers every piped line before exiting, in order; SERVES_USERS=local serves the terminal's user (a bare id is the only chat's)", async () => {
    const child = run("/help\nhello\n/nodes\n/shell echo served-local\n", { SERVES_USERS: "local" });
    expect((await child.exited).code).toBe(0);
    const out = child.stdout();
    expect(out).toContain("served-local");
    expect(out).toContain("/node <name> — switch your active node");
    expect(out).toContain('No model is configured on node "my-box"');
    expect(out).toContain("→ my-box");
    expect(out).not.toContain("disconnected"); // shutting down is not news
  });

  it("with OPENAI_BASE_URL pointing at an OpenAI-compatible server, holds a real conversation", async () => {
    const model = await startFakeOpenAI({ apiKey: "sk-local" });
    scope.add(() => void model.close());
    model.script({ text: "Hello! I am your PhoneWork assistant." }, (request) => ({
      text: `You said "${model.lastUserText(request)}" after ${request.messages.length - 2} earlier messages.`,
    }));
    const child = run("hello\nremember me?\n", {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-local",
      OPENAI_MODEL: "any-model",
    });
    expect((await child.exited).code).toBe(0);
    expect(child.stdout()).toBe(
      'Hello! I am your PhoneWork assistant.\nYou said "remember me?" after 2 earlier messages.\n',
    );
    expect(model.requests.map((r) => r.model)).toEqual(["any-model", "any-model"]);
  });

  it("a SERVES_USERS id that is nobody on the terminal chat stops it at start (exit 2) saying who is", async () => {
    const nobody = run("", { SERVES_USERS: "bob" });
    expect((await nobody.exited).code).toBe(2);
    expect(nobody.stderr()).toContain(
      `SERVES_USERS: "bob" is nobody here: the only chat is this machine's terminal, whose user is terminal:local`,
    );
  });

  it("stops with a message naming the bad key", async () => {
    const child = run("", { HEARTBEAT_INTERVAL_S: "soon" });
    expect((await child.exited).code).toBe(2);
    expect(child.stderr()).toContain("HEARTBEAT_INTERVAL_S: must be a number of seconds");
  });

  it("a ROUTER_PORT already in use is one line naming the address (exit 1), not a stack trace", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    scope.add(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as AddressInfo).port;
    const child = run("/nodes\n", { ROUTER_PORT: String(port) });
    expect((await child.exited).code).toBe(1);
    expect(child.stderr().trim()).toBe(
      `phonework: router cannot listen on 127.0.0.1:${port} (EADDRINUSE): another process is using that port; stop it or set ROUTER_PORT`,
    );
  });
});
