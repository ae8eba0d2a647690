import { existsSync } from "node:fs";
import { join } from "node:path";
import { type FakeSlack, startFakeOpenAI, startFakeSlack, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import {
  holdNextAnswer,
  logLines,
  portOf,
  type RouterProcess,
  scope,
  startHost,
  startRouterProcess,
  startTunnel,
} from "./telegram-e2e-support.ts";

// Slack end to end: `phonework router` and `phonework host` as real processes (the built files),
// the router's @slack/socket-mode and @slack/web-api talking to the fake workspace through
// SLACK_API_URL. What a Slack user sees is read from the fake's transcript.

async function fakeSlack(): Promise<FakeSlack> {
  const fake = await startFakeSlack({ ackTimeoutMs: 1_000 });
  scope.add(() => fake.close());
  return fake;
}

function startRouter(
  fake: FakeSlack,
  env: Record<string, string | undefined>,
  dataDir?: string,
): Promise<RouterProcess> {
  return startRouterProcess(
    { SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken, SLACK_API_URL: fake.apiUrl, ...env },
    dataDir,
  );
}

const forwarded = (router: RouterProcess) =>
  logLines(router.child).filter((line) => line.msg === "forwarding message").length;

describe("Slack in Socket Mode through a real router and host", () => {
  it("a DM reaches the host and is answered once; a stranger is told their id; a 429 is waited out; a restart between receiving and answering loses nothing", {
    timeout: 60_000,
  }, async () => {
    const fake = await fakeSlack();
    const model = await startFakeOpenAI();
    scope.add(() => model.close());
    const ann = fake.user({ name: "ann" });
    const env = { ALLOWED_USERS: `slack:${ann.id}` };
    // The host reaches the router through a fixed address, which follows the router across its restart.
    const tunnel = await startTunnel();
    const router = await startRouter(fake, env);
    tunnel.target(portOf(router.url));
    await startHost({ ...router, nodeUrl: `${tunnel.url.replace(/^http/, "ws")}/ws/node` }, "box", {
      SERVES_USERS: `slack:${ann.id}`,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test",
    });
    const dm = fake.dm(ann);

    const asked = fake.sendMessage({ user: ann.id, text: "/shell echo via-slack" });
    await fake.waitForBot(dm, /via-slack/, 20_000);
    expect(fake.isAcked(asked.envelopeId)).toBe(true);
    // Slack sends it again (its ack seemed late): acknowledged, not handled a second time.
    const again = fake.redeliver(asked.envelopeId);
    expect(again).toMatchObject({ retryAttempt: 1, eventId: asked.eventId });
    await fake.waitForAck(again.envelopeId);

    const stranger = fake.user({ name: "mallory" });
    fake.sendMessage({ user: stranger.id, text: "/shell touch pwned" });
    const refused = await fake.waitForBot(fake.dm(stranger), /This bot is private/);
    expect(refused.text).toContain(`slack:${stranger.id}`);
    expect(forwarded(router)).toBe(1);

    // Rate limited once: the shared send queue waits Retry-After out, and the answer goes out once.
    fake.failNext("chat.postMessage", { status: 429, retryAfter: 1 });
    const before = fake.callsOf("chat.postMessage").length;
    const limitedAt = Date.now();
    fake.sendMessage({ user: ann.id, text: "/shell echo after-the-limit" });
    await fake.waitForBot(dm, /after-the-limit/, 20_000);
    const calls = fake.callsOf("chat.postMessage").slice(before);
    expect(calls.map((call) => call.status)).toEqual([429, 200]);
    expect(Date.now() - limitedAt).toBeGreaterThanOrEqual(1_000);

    // The node is still working when the router is killed; its answer reaches the chat once after.
    const { release } = holdNextAnswer(model, "the slow answer");
    const slow = fake.sendMessage({ user: ann.id, text: "a slow question" });
    await waitFor(() => model.requests.length === 1, { message: "the node asking its model" });
    expect(fake.isAcked(slow.envelopeId)).toBe(true);
    router.child.kill("SIGKILL");
    await router.child.exited;
    release();
    const restarted = await startRouter(fake, env, router.dataDir);
    tunnel.target(portOf(restarted.url));
    await restarted.child.waitForStderr(/"nodeId":"box".*"msg":"node registered"/, 20_000);
    await fake.waitForBot(dm, /the slow answer/, 20_000);
    const later = fake.sendMessage({ user: ann.id, text: "/shell echo later" });
    await fake.waitForBot(dm, /later/, 20_000);
    expect(fake.isAcked(later.envelopeId)).toBe(true);
    expect(fake.botMessages(dm).filter((m) => /the slow answer/.test(m.text))).toHaveLength(1);
    expect(fake.botMessages(dm).filter((m) => /via-slack/.test(m.text))).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });
});

describe("Slack in HTTP mode through a real router and host", () => {
  it("a forged signature is refused (401) and nothing is stored; a valid post is answered once, its replay dropped", async () => {
    const fake = await fakeSlack();
    const bea = fake.user({ name: "bea" });
    const router = await startRouter(fake, {
      SLACK_MODE: "http",
      SLACK_APP_TOKEN: undefined,
      SLACK_SIGNING_SECRET: fake.signingSecret,
      ALLOWED_USERS: `slack:${bea.id}`,
    });
    const { dir } = await startHost(router, "box", { SERVES_USERS: `slack:${bea.id}` });
    const hook = `${router.url}/webhook/slack`;
    const dm = fake.dm(bea);

    const challenge = await fake.http.post(
      hook,
      fake.http.jsonRequest({ type: "url_verification", challenge: "abc" }),
    );
    expect(challenge).toEqual({ status: 200, body: '{"challenge":"abc"}' });

    const forged = [
      fake.http.eventRequest({ user: bea.id, text: "/shell touch pwned" }, { secret: "guessed" }).request,
      fake.http.eventRequest({ user: bea.id, text: "/shell touch pwned" }, { unsigned: true }).request,
      fake.http.eventRequest(
        { user: bea.id, text: "/shell touch pwned" },
        { timestamp: Math.floor(Date.now() / 1000) - 400 },
      ).request,
      fake.http.slashRequest(
        { user: bea.id, channel: dm, command: "/pw", text: "shell touch pwned" },
        { secret: "guessed" },
      ),
    ];
    for (const request of forged) expect((await fake.http.post(hook, request)).status).toBe(401);

    const valid = fake.http.eventRequest({ user: bea.id, text: "/shell echo signed-ok" });
    expect((await fake.http.post(hook, valid.request)).status).toBe(200);
    await fake.waitForBot(dm, /signed-ok/, 20_000);
    expect((await fake.http.post(hook, valid.request)).status).toBe(200); // a replay: acknowledged, dropped

    const slash = fake.http.slashRequest({
      user: bea.id,
      channel: dm,
      command: "/pw",
      text: "shell echo by-command",
    });
    expect((await fake.http.post(hook, slash)).status).toBe(200);
    await fake.waitForBot(dm, /by-command/, 20_000);

    expect(forwarded(router)).toBe(2);
    expect(fake.botMessages(dm).filter((m) => /signed-ok/.test(m.text))).toHaveLength(1);
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    expect(logLines(router.child).filter((line) => line.msg === "webhook rejected")).toHaveLength(4);
  });
});
