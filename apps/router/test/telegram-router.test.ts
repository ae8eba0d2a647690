import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeTelegram,
  feishuConversation,
  startFakeFeishu,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { openRouterDatabase, routerDatabasePath } from "../src/database/router-db.ts";
import {
  fakeTelegram,
  holdNextAnswer,
  logLines,
  portOf,
  type RouterProcess,
  scope,
  startHost,
  startRouter,
  startTunnel,
  telegramChat,
} from "./telegram-e2e-support.ts";

// Telegram end to end: `phonework router` and `phonework host` as real processes, the router's
// grammY talking to the fake Bot API. What a Telegram user sees is read from the fake's transcript.

const HOOK_SECRET = "hook_Secret-0123456789";

describe("Telegram webhook mode through a real router and host", () => {
  it("setWebhook with the secret at start; an update posted with it is answered; a wrong secret is refused (401) and reaches no node; the command menu grows with the node", async () => {
    const fake = await fakeTelegram();
    const alice = fake.user({ first_name: "Alice", username: "alice" });
    // The public address Telegram posts to: known before the router runs, forwarding to it after.
    const tunnel = await startTunnel();
    const hook = `${tunnel.url}/webhook/telegram`;
    const router = await startRouter(fake, {
      TELEGRAM_MODE: "webhook",
      TELEGRAM_WEBHOOK_SECRET: HOOK_SECRET,
      TELEGRAM_WEBHOOK_URL: hook,
      ALLOWED_USERS: String(alice.id),
    });
    tunnel.target(portOf(router.url));
    expect(fake.webhook()).toEqual({ url: hook, secretToken: HOOK_SECRET, maxConnections: 40 });
    expect(fake.callsOf("setWebhook")).toMatchObject([
      { params: { url: hook, secret_token: HOOK_SECRET }, status: 200 },
    ]);
    expect(fake.callsOf("getUpdates")).toEqual([]);
    // The command menu: the router's own at start, with the node's added once it is online.
    const routerMenu = ["nodes", "node", "result", "details", "console", "voice", "retry", "help"];
    const menuOf = (call: { params: Record<string, unknown> }) =>
      (call.params.commands as Array<{ command: string }>).map((entry) => entry.command);
    expect(menuOf(await fake.waitForCall("setMyCommands"))).toEqual(routerMenu);
    const { dir } = await startHost(router, "box", { SERVES_USERS: String(alice.id) });
    await fake.waitForCall("setMyCommands", (call) => menuOf(call).includes("shell"));
    const menu = fake.commands().map((entry) => entry.command);
    expect(menu.slice(0, routerMenu.length)).toEqual(routerMenu);
    expect(menu).toEqual(expect.arrayContaining(["shell", "new", "threads", "approve", "deny", "stop"]));

    const chat = telegramChat(fake, alice);
    const asked = chat.send("/shell echo via-webhook");
    const answer = await chat.waitForBot(/via-webhook/);
    expect(answer.replyTo).toBe(asked.message?.message_id);
    expect(fake.webhookAttempts().map((attempt) => [attempt.updateId, attempt.status])).toEqual([
      [asked.update_id, 200],
    ]);
    expect(fake.isAcknowledged(asked.update_id)).toBe(true);

    // Someone who knows the path but not the secret: refused before anything is read or stored.
    const forwarded = () => logLines(router.child).filter((line) => line.msg === "forwarding message").length;
    const before = forwarded();
    const forged = {
      update_id: asked.update_id + 1_000,
      message: {
        message_id: 9_999,
        date: Math.floor(Date.now() / 1000),
        chat: { id: alice.id, type: "private", first_name: "Alice" },
        from: alice,
        text: "/shell touch pwned",
      },
    };
    const wrongSecrets: Array<Record<string, string>> = [{ "x-telegram-bot-api-secret-token": "wrong" }, {}];
    for (const headers of wrongSecrets) {
      const refused = await fetch(`${router.url}/webhook/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(forged),
      });
      expect(refused.status).toBe(401);
    }
    // The next genuine message is answered, and it is the only one forwarded since.
    const next = chat.send("/shell echo still-here");
    await chat.waitForBot(/still-here/, next.message?.message_id);
    expect(forwarded()).toBe(before + 1);
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    expect(chat.botMessages().map((m) => m.text)).not.toContainEqual(expect.stringContaining("pwned"));
    expect(
      logLines(router.child).filter(
        (line) => line.msg === "Telegram webhook refused: missing or wrong secret token",
      ),
    ).toHaveLength(2);
    expect(fake.callsOf("getUpdates")).toEqual([]);
  });
});

describe("one router serving Feishu, Telegram and the terminal at once", () => {
  it("each user reaches their own node and gets the answer on their own platform; nobody reaches another's node", async () => {
    const feishu = await startFakeFeishu();
    scope.add(() => feishu.close());
    const fake = await fakeTelegram();
    const tom = fake.user({ first_name: "Tom", username: "tom" });
    const router = await startRouter(fake, {
      FEISHU_APP_ID: feishu.appId,
      FEISHU_APP_SECRET: feishu.appSecret,
      FEISHU_DOMAIN: feishu.url,
      CHAT: "terminal",
      ALLOWED_USERS: `feishu:ou_fay,telegram:${tom.id}`,
    });
    await feishu.waitForWsConnection();
    expect(logLines(router.child)).toContainEqual(
      expect.objectContaining({
        msg: "chat started",
        platforms: ["feishu", "telegram", "terminal", "console"],
      }),
    );
    await startHost(router, "fay-box", { SERVES_USERS: "feishu:ou_fay" });
    await startHost(router, "tom-box", { SERVES_USERS: `telegram:${tom.id}` });
    await startHost(router, "desk-box", { SERVES_USERS: "terminal:local" });
    const noModel = (node: string) => new RegExp(`^No model is configured on node "${node}"`);

    const fay = feishuConversation(feishu, "ou_fay", "oc_fay");
    const onTelegram = telegramChat(fake, tom);
    const terminal = {
      say: async (text: string, expected: RegExp) => {
        const before = router.child.stdout().length;
        router.child.writeLine(text);
        await waitFor(() => expected.test(router.child.stdout().slice(before)), {
          message: `the terminal's answer to "${text}" matching ${expected} (stdout: ${router.child.stdout()})`,
        });
        return router.child.stdout().slice(before);
      },
    };
    await fay.say("hello from Feishu", noModel("fay-box"));
    const asked = onTelegram.send("hello from Telegram");
    await onTelegram.waitForBot(noModel("tom-box"), asked.message?.message_id);
    await terminal.say("hello from the terminal", /No model is configured on node "desk-box"/);

    // Each sees only their own node, and naming another's is answered without sending anything.
    expect(await fay.say("/nodes", /fay-box/)).not.toMatch(/tom-box|desk-box/);
    await fay.say("/node tom-box", /^❓ No node named "tom-box"\. Your nodes: fay-box\. Nothing was sent\.$/);
    await fay.say("@desk-box hi", /^❓ No node named "desk-box"\. Your nodes: fay-box\. Nothing was sent\.$/);
    const tomNodes = onTelegram.send("/nodes");
    const listed = await onTelegram.waitForBot(/tom-box/, tomNodes.message?.message_id);
    expect(listed.text).not.toMatch(/fay-box|desk-box/);
    const reach = onTelegram.send("@fay-box hi");
    await onTelegram.waitForBot(
      /^❓ No node named "fay-box"\. Your nodes: tom-box\. Nothing was sent\.$/,
      reach.message?.message_id,
    );
    await terminal.say(
      "/node tom-box",
      /❓ No node named "tom-box"\. Your nodes: desk-box\. Nothing was sent\./,
    );

    // Every answer went to the platform it was asked on.
    const forwarded = logLines(router.child).filter((line) => line.msg === "forwarding message");
    expect(forwarded.map((line) => [line.userId, line.nodeId])).toEqual([
      ["feishu:ou_fay", "fay-box"],
      [`telegram:${tom.id}`, "tom-box"],
      ["terminal:local", "desk-box"],
    ]);
    const answeredBy = (text: string) => [...text.matchAll(/configured on node "([^"]+)"/g)].map((m) => m[1]);
    expect(answeredBy(fay.texts().join("\n"))).toEqual(["fay-box"]);
    expect(answeredBy(fake.renderTranscript(tom.id))).toEqual(["tom-box"]);
    expect(answeredBy(router.child.stdout())).toEqual(["desk-box"]);
  });
});

/** Every update a getUpdates call handed the router. */
const fetchedUpdateIds = (fake: FakeTelegram, from = 0) =>
  fake
    .callsOf("getUpdates")
    .slice(from)
    .flatMap((call) => (Array.isArray(call.result) ? (call.result as Array<{ update_id: number }>) : []))
    .map((update) => update.update_id);

/** Runs `use` on the router.db of `dataDir` (the router may be running: WAL lets both in). */
function withRouterDb<T>(dataDir: string, use: (db: ReturnType<typeof openRouterDatabase>) => T): T {
  const db = openRouterDatabase(routerDatabasePath(dataDir));
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** Whether the stored message with this text has its "handled" mark committed. */
const handledMarked = (dataDir: string, text: string) =>
  withRouterDb(dataDir, (db) =>
    Boolean(
      db.prepare("SELECT 1 FROM chat_inbox WHERE message LIKE ? AND handled_at IS NOT NULL").get(`%${text}%`),
    ),
  );

/** The state a kill leaves between forwarding a message and committing its "handled" mark. */
function unmarkHandled(dataDir: string, text: string): void {
  const { changes } = withRouterDb(dataDir, (db) =>
    db.prepare("UPDATE chat_inbox SET handled_at = NULL WHERE message LIKE ?").run(`%${text}%`),
  );
  expect(changes).toBe(1);
}

async function killed(router: RouterProcess): Promise<void> {
  router.child.kill("SIGKILL");
  expect(await router.child.exited).toEqual({ code: null, signal: "SIGKILL" });
}

describe("a router restart between receiving an update and answering it", () => {
  /** A router on a fixed public address (the tunnel) with one host whose assistant is a fake model. */
  async function setup() {
    const fake = await fakeTelegram();
    const model = await startFakeOpenAI();
    scope.add(() => model.close());
    const alice = fake.user({ first_name: "Alice", username: "alice" });
    const tunnel = await startTunnel();
    const env = { ALLOWED_USERS: String(alice.id) };
    const router = await startRouter(fake, env);
    tunnel.target(portOf(router.url));
    const { dir } = await startHost(
      { ...router, nodeUrl: `${tunnel.url.replace(/^http/, "ws")}/ws/node` },
      "box",
      { SERVES_USERS: String(alice.id), OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "sk-test" },
    );
    // Alice has talked to her node: after a restart her messages are for it, once it is back.
    const chat = telegramChat(fake, alice);
    const hello = chat.send("/shell echo hello");
    await chat.waitForBot(/hello/, hello.message?.message_id);
    /** The same DATA_DIR, behind the same public address; resolves once the host is back. */
    const restart = async () => {
      const again = await startRouter(fake, env, router.dataDir);
      tunnel.target(portOf(again.url));
      await again.child.waitForStderr(/"nodeId":"box".*"msg":"node registered"/, 20_000);
      return again;
    };
    return { fake, model, alice, router, restart, chat, hostDir: dir };
  }

  it("stored but not yet handled (killed while fetching its file): handled after the restart, answered once, not fetched again", async () => {
    const { fake, model, router, restart, chat } = await setup();
    // The file's getFile hangs: the update is stored and confirmed, its handling has not ended.
    fake.failNext("getFile", { delayMs: 60_000 });
    const sent = fake.injectDocument({
      from: chat.user,
      data: "line one\n",
      filename: "notes.txt",
      caption: "read my notes",
    });
    await fake.waitForAcknowledged(sent.update_id, 15_000);
    await waitFor(() => fake.callsOf("getFile").length === 1, { message: "the router fetching the file" });
    expect(chat.answersTo(sent.message?.message_id ?? -1)).toEqual([]);
    await killed(router);
    const polledBefore = fake.callsOf("getUpdates").length;

    const again = await restart();
    const answer = await chat.waitForBot(/fake-model: read my notes/);
    expect(answer.replyTo).toBe(sent.message?.message_id);
    expect(logLines(again.child)).toContainEqual(
      expect.objectContaining({ msg: "handling messages stored before a restart", count: 1 }),
    );
    // Saved in the chat's attachments/ in the host's workspace; the message names its path.
    const saved = String(/\[attached: (.+) \(\d/.exec(model.lastUserText())?.[1]);
    expect(saved).toMatch(/\/workspace\/channels\/telegram\/[^/]+\/attachments\/notes\.txt$/);
    expect(readFileSync(saved, "utf8")).toBe("line one\n");
    expect(model.lastUserText()).toContain(saved);

    // A later message's answer comes after anything still on its way for the first one.
    const later = chat.send("/shell echo later");
    await chat.waitForBot(/later/, later.message?.message_id);
    expect(chat.answersTo(sent.message?.message_id ?? -1)).toHaveLength(1);
    expect(model.requests.filter((r) => model.lastUserText(r).includes("read my notes"))).toHaveLength(1);
    expect(fetchedUpdateIds(fake, polledBefore)).not.toContain(sent.update_id);
  });

  it("forwarded and still being worked on by the node: the node's answer reaches the chat once after the restart; killed again before its handled mark, a message is forwarded again under its id and run once", async () => {
    const { fake, model, router, restart, chat } = await setup();
    const { release } = holdNextAnswer(model, "the slow answer");
    const sent = chat.send("a slow question");
    await waitFor(() => model.requests.length === 1, { message: "the node asking its model" });
    expect(fake.isAcknowledged(sent.update_id)).toBe(true);
    // Killed once the message counts as handled (its mark commits within 50 ms of the forward).
    await waitFor(() => handledMarked(router.dataDir, "a slow question"), { message: "the handled mark" });
    await killed(router);
    const polledBefore = fake.callsOf("getUpdates").length;
    release(); // the node answers while the router is down: its outbox keeps the answer

    const restarted = await restart();
    const answer = await chat.waitForBot(/the slow answer/);
    expect(answer.text).toMatch(/^↩️ Late answer to an earlier message:\s+the slow answer$/);
    const later = chat.send("/shell echo later");
    await chat.waitForBot(/later/, later.message?.message_id);
    expect(chat.botMessages().filter((m) => /the slow answer/.test(m.text ?? ""))).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(fetchedUpdateIds(fake, polledBefore)).not.toContain(sent.update_id);

    // Killed again, this time before the "handled" mark of the message it had just forwarded was
    // committed (the mark waits up to 50 ms for a commit; with a warm host the model is asked
    // sooner): the state that leaves is made here, the mark undone after the kill. The next start
    // forwards the message again, under the same request id, so the node does not run it twice.
    const second = holdNextAnswer(model, "the second slow answer");
    chat.send("another slow question");
    await waitFor(() => model.requests.length === 2, { message: "the node asking its model again" });
    await killed(restarted);
    const forwardedIds = (router: RouterProcess) =>
      logLines(router.child)
        .filter((line) => line.msg === "forwarding message")
        .map((line) => line.requestId);
    const firstId = forwardedIds(restarted).at(-1);
    unmarkHandled(restarted.dataDir, "another slow question");
    second.release();
    const third = await restart();
    const secondAnswer = await chat.waitForBot(/the second slow answer/);
    expect(secondAnswer.text).toMatch(/^(↩️ Late answer to an earlier message:\s+)?the second slow answer$/);
    const last = chat.send("/shell echo last");
    await chat.waitForBot(/last/, last.message?.message_id);
    expect(logLines(third.child)).toContainEqual(
      expect.objectContaining({ msg: "handling messages stored before a restart", count: 1 }),
    );
    expect(model.requests).toHaveLength(2);
    expect(forwardedIds(third)[0]).toBe(firstId);
    expect(chat.botMessages().filter((m) => /the second slow answer/.test(m.text ?? ""))).toHaveLength(1);
  });
});
