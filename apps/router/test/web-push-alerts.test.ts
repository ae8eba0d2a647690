import { Agent } from "node:https";
import {
  CleanupScope,
  connectFakeNode,
  createTestLogger,
  type FakeNode,
  type FakePush,
  newPushSubscriber,
  placeholderConsolePage,
  startFakePush,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { createRouter, type Router } from "../src/create-router.ts";
import { createMemoryChatAdapter, type MemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import { consoleLinkFor } from "./console-support.ts";
import { memoryId, SECRET, testRouterConfig } from "./support.ts";

// What reaches a console user's phone, against the testkit's fake push service (it checks the
// VAPID JWT and decrypts each push with the subscription's keys): a task finishing, an approval
// (with Approve/Deny), a node going offline — only to subscriptions covering that node, and
// nothing while a page of the user's is open and visible. And the notification's Approve/Deny
// route, attacked.

interface Pushed {
  title: string;
  body: string;
  tag?: string;
  url?: string;
  node?: string;
  actions?: { action: string; title: string }[];
}

/** One world for the file (support.ts's cleanups run after each test): undone in afterAll. */
const scope = new CleanupScope();
const onCleanup = (step: () => unknown) => scope.add(async () => void (await step()));
let push: FakePush;
let agent: Agent;
let t: { router: Router; chat: MemoryChatAdapter; url: string; nodeUrl: string };
let host: string;
let cookie: string;
let workSrv: FakeNode;
let homePc: FakeNode;
/** Alice's two phones: one for every node, one for home-pc only. */
let allNodes: string;
let homeOnly: string;

const ALICE = memoryId("alice");

async function signIn(user: string): Promise<string> {
  const code = new URL(await consoleLinkFor(t.chat, user)).searchParams.get("code") ?? "";
  const response = await t.router.app.inject({
    method: "POST",
    url: "/console/login",
    headers: { host, origin: t.url, "content-type": "application/x-www-form-urlencoded" },
    payload: `code=${code}`,
  });
  return String(response.headers["set-cookie"]).split(";")[0] ?? "";
}

async function subscribe(nodes?: string[]): Promise<string> {
  const subscriber = newPushSubscriber();
  const { id, endpoint } = push.subscribe(subscriber);
  const response = await t.router.app.inject({
    method: "POST",
    url: "/console/push/subscription",
    headers: { host, cookie, origin: t.url, "content-type": "application/json" },
    payload: JSON.stringify({ endpoint, keys: subscriber.keys, ...(nodes ? { nodes } : {}) }),
  });
  expect(response.statusCode).toBe(204);
  return id;
}

async function node(nodeId: string): Promise<FakeNode> {
  const fake = await connectFakeNode({ url: t.nodeUrl, secret: SECRET });
  onCleanup(() => fake.close());
  await fake.register({ node_id: nodeId, serves_users: [ALICE] });
  return fake;
}

const pushesTo = (id: string) =>
  push.received.filter((received) => received.id === id).map((got) => JSON.parse(got.payload) as Pushed);

/** Sends a push frame from `from` and waits until the router acknowledged it and its phone alert settled. */
async function delivered(from: FakeNode, frame: Record<string, unknown>): Promise<void> {
  from.send(frame);
  await from.inbox.next("push_ack", (ack) => ack.delivery_id === frame.delivery_id);
  await t.router.console?.alerts.drain();
}

const taskComplete = (deliveryId: string) => ({
  type: "task_complete",
  delivery_id: deliveryId,
  task_id: deliveryId,
  user_id: ALICE,
  ok: true,
  description: "build",
  output: "SECRET-OUTPUT line 1\nline 2",
  elapsed_ms: 123_000,
});

/** An open console page of alice's that says whether it is on screen. */
async function openPage() {
  const socket = new WebSocket(`${t.url.replace(/^http/, "ws")}/console/ws`, {
    headers: { cookie, origin: t.url },
  });
  onCleanup(() => socket.terminate());
  const frames: { type: string }[] = [];
  socket.on("message", (data) => frames.push(JSON.parse(String(data)) as { type: string }));
  await waitFor(() => frames.find((frame) => frame.type === "hello"), { message: "the page's hello" });
  return {
    /** Says it and waits until the router has read it (the toast for a junk frame sent after it). */
    async visible(visible: boolean) {
      const before = frames.length;
      socket.send(JSON.stringify({ type: "visibility", visible }));
      socket.send(JSON.stringify({ type: "nonsense" }));
      await waitFor(() => frames.slice(before).find((frame) => frame.type === "toast"), {
        message: "the router read the page's frames",
      });
    },
    async close() {
      socket.close();
      await waitFor(() => (socket.readyState === WebSocket.CLOSED ? true : undefined));
    },
  };
}

beforeAll(async () => {
  push = await startFakePush();
  agent = new Agent({ ca: push.ca });
  const chat = createMemoryChatAdapter();
  const router = createRouter(testRouterConfig({ ALLOWED_USERS: "*", DATA_DIR: scope.tempDir() }), {
    logger: createTestLogger().logger,
    chat: [chat],
    consoleAssets: placeholderConsolePage(scope.tempDir()),
    pushAgent: agent,
  });
  const url = await router.start();
  onCleanup(() => router.close({ drainMs: 0 }));
  t = { router, chat, url, nodeUrl: router.nodeUrl };
  host = new URL(t.url).host;
  cookie = await signIn("alice");
  allNodes = await subscribe();
  homeOnly = await subscribe(["home-pc"]);
  workSrv = await node("work-srv");
  homePc = await node("home-pc");
});

afterAll(async () => {
  await scope.run();
  agent?.destroy();
  await push?.close();
});

describe("phone alerts", () => {
  it("a task finishing with no page open is one push, a summary without the output, to phones covering its node", async () => {
    await delivered(workSrv, taskComplete("t1"));
    expect(pushesTo(allNodes)).toEqual([
      {
        title: "Task finished",
        body: "✅ build finished on work-srv (2m)",
        tag: "task-work-srv-t1",
        url: "/console/",
        node: "work-srv",
      },
    ]);
    expect(push.received.map((got) => got.payload).join()).not.toContain("SECRET-OUTPUT");
    expect(pushesTo(homeOnly)).toEqual([]); // that phone is for home-pc only
    // The host resending it (no ack seen) is not news again.
    await delivered(workSrv, taskComplete("t1"));
    expect(pushesTo(allNodes)).toHaveLength(1);
  });

  it("is not pushed while a page is open and visible; it is when the page is hidden", async () => {
    const page = await openPage();
    await page.visible(true);
    const before = push.received.length;
    await delivered(workSrv, taskComplete("t2"));
    expect(push.received.length).toBe(before);

    await page.visible(false); // the phone locked, another tab
    await delivered(workSrv, taskComplete("t3"));
    expect(pushesTo(allNodes).map((got) => got.tag)).toEqual(["task-work-srv-t1", "task-work-srv-t3"]);
    await page.close();
  });

  it("an approval waiting is pushed with Approve and Deny; a notify without `alert` (an older host) is not", async () => {
    const before = push.received.length;
    await delivered(workSrv, {
      type: "notify",
      delivery_id: "plain-1",
      user_id: ALICE,
      text: "just a message",
    });
    expect(push.received.length).toBe(before);
    await delivered(workSrv, {
      type: "notify",
      delivery_id: "approval-3f2a",
      user_id: ALICE,
      text: "🔐 Codex wants to run: pnpm build\nReply /approve 3f2a or /deny 3f2a.",
      buttons: [
        [
          { label: "Approve", command: "/approve 3f2a" },
          { label: "Deny", command: "/deny 3f2a" },
        ],
      ],
      alert: "approval",
    });
    expect(pushesTo(allNodes).at(-1)).toEqual({
      title: "Approval waiting on work-srv",
      body: "🔐 Codex wants to run: pnpm build",
      url: "/console/",
      node: "work-srv",
      actions: [
        { action: "/approve 3f2a", title: "Approve" },
        { action: "/deny 3f2a", title: "Deny" },
      ],
    });
  });

  it("Approve from the notification is alice's own message to that node; anything else is refused", async () => {
    const act = (body: unknown, headers: Record<string, string> = { cookie, origin: t.url }) =>
      t.router.app.inject({
        method: "POST",
        url: "/console/push/act",
        headers: { host, "content-type": "application/json", ...headers },
        payload: typeof body === "string" ? body : JSON.stringify(body),
      });
    const good = { node: "work-srv", command: "/approve 3f2a" };
    expect((await act(good, { origin: t.url })).statusCode).toBe(401); // no cookie
    expect((await act(good, { cookie, origin: "https://evil.example" })).statusCode).toBe(403);
    expect((await act(good, { cookie })).statusCode).toBe(403); // no Origin
    for (const bad of [
      { node: "work-srv", command: "/shell rm -rf /" },
      { node: "work-srv", command: "/approve 3f2a\n/shell rm -rf /" },
      { node: "work-srv", command: "/approve 3f2a; rm -rf /" },
      { node: "work-srv /shell rm -rf /", command: "/approve 3f2a" },
      { node: "@home-pc", command: "/approve 3f2a" },
      { node: "work-srv\n", command: "/approve 3f2a" },
      { node: "work-srv" },
      "{not json",
    ])
      expect((await act(bad)).statusCode, JSON.stringify(bad)).toBe(400);
    expect((await act({ node: "not-alices", command: "/deny 3f2a" })).statusCode).toBe(404);
    expect((await act({ ...good, pad: "x".repeat(4000) })).statusCode).toBe(413);
    expect(workSrv.inbox.frames.filter((frame) => frame.type === "forward")).toEqual([]);

    expect((await act(good)).statusCode).toBe(202);
    const forwarded = await workSrv.inbox.next("forward");
    expect(forwarded).toMatchObject({ user_id: ALICE, text: "/approve 3f2a" });
    expect((await t.router.app.inject({ method: "GET", url: "/health" })).statusCode).toBe(200);
  });

  it("a node going offline is pushed only to the phones covering it", async () => {
    const [all, home] = [pushesTo(allNodes).length, pushesTo(homeOnly).length];
    workSrv.close();
    await waitFor(() => (pushesTo(allNodes).length > all ? true : undefined), {
      message: "work-srv offline",
    });
    await t.router.console?.alerts.drain();
    expect(pushesTo(allNodes).at(-1)).toMatchObject({ title: "work-srv went offline", node: "work-srv" });
    expect(pushesTo(homeOnly)).toHaveLength(home);

    homePc.close();
    await waitFor(() => (pushesTo(homeOnly).length > home ? true : undefined), {
      message: "home-pc offline",
    });
    await t.router.console?.alerts.drain();
    expect(pushesTo(homeOnly).at(-1)).toMatchObject({ title: "home-pc went offline" });
    expect(pushesTo(allNodes)).toHaveLength(all + 2);
  });
});
