import { type FakeDiscord, startFakeDiscord, startFakeOpenAI, waitFor } from "@phonework/testkit";
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

// Discord end to end: `phonework router` and `phonework host` as real processes (the built bundle),
// the router's @discordjs/rest and @discordjs/ws talking to the fake Discord through DISCORD_API_URL.

async function fakeDiscord(): Promise<FakeDiscord> {
  const fake = await startFakeDiscord();
  scope.add(() => fake.close());
  return fake;
}

function startRouter(
  fake: FakeDiscord,
  env: Record<string, string>,
  dataDir?: string,
): Promise<RouterProcess> {
  return startRouterProcess({ DISCORD_BOT_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, ...env }, dataDir);
}

const botReplies = (fake: FakeDiscord, channelId: string, pattern: RegExp) =>
  fake.transcript(channelId).filter((entry) => entry.from === "bot" && pattern.test(entry.content));

describe("Discord through a real router and host", () => {
  it("a DM reaches the host and is answered once, also when the gateway replays it after a RESUME; a stranger is told their id; slash commands are registered", async () => {
    const fake = await fakeDiscord();
    const alice = fake.user({ username: "alice" });
    const router = await startRouter(fake, { ALLOWED_USERS: `discord:${alice.id}` });
    await startHost(router, "box", { SERVES_USERS: `discord:${alice.id}` });
    const dm = fake.dm(alice).id;

    fake.sendMessage({ from: alice, content: "/shell echo via-$((6*7))" });
    await fake.waitForBot(dm, /via-42/, 20_000);
    // The connection drops right after a message; the RESUME replays it: still answered once.
    fake.sendMessage({ from: alice, content: "/shell echo once-only" });
    fake.dropConnection({ redeliver: 1 });
    await fake.waitForBot(dm, /once-only/, 20_000);
    await waitFor(() => fake.gateway().resumes === 1, { message: "the router resuming" });
    fake.sendMessage({ from: alice, content: "/shell echo after-resume" });
    await fake.waitForBot(dm, /after-resume/, 20_000);
    expect(botReplies(fake, dm, /once-only/)).toHaveLength(1);
    expect(logLines(router.child)).toContainEqual(
      expect.objectContaining({ msg: "redelivered message dropped" }),
    );

    const mallory = fake.user({ username: "mallory" });
    fake.sendMessage({ from: mallory, content: "/shell id" });
    const refused = await fake.waitForBot(fake.dm(mallory).id, /private/, 20_000);
    expect(refused.content).toContain(`discord:${mallory.id}`);
    const names = (fake.commands() as Array<{ name: string }>).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["nodes", "help"]));
  });

  it("the router restarted between receiving a DM and answering it: the answer reaches the chat once", async () => {
    const fake = await fakeDiscord();
    const model = await startFakeOpenAI();
    scope.add(() => model.close());
    const alice = fake.user({ username: "alice" });
    const tunnel = await startTunnel();
    const env = { ALLOWED_USERS: `discord:${alice.id}` };
    const router = await startRouter(fake, env);
    tunnel.target(portOf(router.url));
    await startHost({ ...router, nodeUrl: `${tunnel.url.replace(/^http/, "ws")}/ws/node` }, "box", {
      SERVES_USERS: `discord:${alice.id}`,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test",
    });
    const dm = fake.dm(alice).id;
    const { release } = holdNextAnswer(model, "the slow answer");
    fake.sendMessage({ from: alice, content: "a slow question" });
    await waitFor(() => model.requests.length === 1, {
      timeoutMs: 20_000,
      message: "the node asking its model",
    });
    router.child.kill("SIGKILL");
    await router.child.exited;
    release(); // the node answers while the router is down: its outbox keeps the answer

    const again = await startRouter(fake, env, router.dataDir);
    tunnel.target(portOf(again.url));
    await fake.waitForBot(dm, /the slow answer/, 30_000);
    expect(botReplies(fake, dm, /the slow answer/)).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });
});
