import type { SessionSummary } from "@phonework/protocol";
import { type FakeOpenAI, startFakeOpenAI, waitFor } from "@phonework/testkit";
import { beforeEach, describe, expect, it } from "vitest";
import { openRouterDatabase, routerDatabasePath } from "../src/database/router-db.ts";
import { findExplicitTarget } from "../src/routing/explicit-target.ts";
import { RoutingUsage } from "../src/routing/routing-usage.ts";
import {
  adminHeaders,
  echoHandler,
  memoryId,
  onCleanup,
  startTestHost,
  startTestRouter,
  type TestRouter,
} from "./support.ts";

// The routing order with two and three real hosts for one user, and a fake OpenAI-compatible
// server as the routing LLM: what it is shown, what it answers, and when it is not asked at all.

const USER = "u1";
/** The user's id as hosts receive it, and use it in sessions and pushes. */
const USER_ID = memoryId(USER);
let llm: FakeOpenAI;
let t: TestRouter;

const routingCalls = () => llm.requests.length;
const systemPrompt = (i = -1) => String(llm.requests.at(i)?.messages[0]?.content ?? "");
const routeTo = (nodeId: string) => ({ toolCalls: [{ name: "route_to", arguments: { node_id: nodeId } }] });

async function startRouter(overrides: Record<string, unknown> = {}): Promise<TestRouter> {
  t = await startTestRouter({
    ROUTER_LLM_BASE_URL: llm.url,
    ROUTER_LLM_API_KEY: "routing-key",
    ROUTER_LLM_MODEL: "router-model",
    ...overrides,
  });
  return t;
}

async function startNode(nodeId: string, extra: Record<string, unknown> = {}) {
  const host = startTestHost(
    t.nodeUrl,
    { NODE_ID: nodeId, SERVES_USERS: USER, ...extra },
    echoHandler(nodeId),
  );
  await host.ready();
  return host;
}

/** Sends a message and waits for the next reply to it. */
async function say(text: string): Promise<string> {
  const before = t.chat.textsFor(USER).length;
  t.chat.receive({ userId: USER, text });
  return waitFor(() => t.chat.textsFor(USER)[before], { message: `a reply to "${text}"` });
}

/** The node /nodes marks with →. */
async function activeNodeIs(): Promise<string | undefined> {
  return /^→ (\S+)/m.exec(await say("/nodes"))?.[1];
}

function session(id: string, overrides: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id,
    agent: "claude",
    project: "todo_app",
    busy: false,
    user_id: USER_ID,
    active: true,
    ...overrides,
  };
}

beforeEach(async () => {
  llm = await startFakeOpenAI();
  // Unscripted, the model answers in prose: not a routing decision, so routing falls back.
  llm.fallback = () => ({ text: "I think it should go somewhere." });
  onCleanup(() => llm.close());
});

describe("routing order (two and three nodes for one user)", () => {
  it("1. router commands are answered by the router, without the LLM", async () => {
    await startRouter();
    await startNode("home-pc");
    await startNode("work-server");
    expect(await say("/nodes")).toMatch(/^Online:/);
    expect(await say("/help")).toMatch(/^PhoneWork commands:/);
    expect(routingCalls()).toBe(0);
  });

  it("2. an explicit @name or 'on name:' goes to that node, without the LLM, and it becomes active", async () => {
    await startRouter();
    await startNode("home-pc");
    await startNode("work-server", { DISPLAY_NAME: "Work Box" });
    await startNode("laptop");
    expect(await say("/node home-pc")).toBe("✅ Active node: home-pc.");

    expect(await say("@work-server run the tests")).toBe("[work-server] work-server: run the tests");
    expect(await activeNodeIs()).toBe("work-server");
    expect(await say("on laptop: uptime")).toBe("[laptop] laptop: uptime");
    expect(await say("@Work Box, df -h")).toBe("[work-server] work-server: df -h");
    // Already the active node: still tagged, the user has several.
    expect(await say("@work-server again")).toBe("[work-server] work-server: again");
    // Just the name switches, like /node.
    expect(await say("@laptop")).toBe("✅ Active node: laptop.");
    expect(await activeNodeIs()).toBe("laptop");
    expect(routingCalls()).toBe(0);
  });

  it("2. an explicit target that is offline is told clearly, with its last-seen time", async () => {
    await startRouter();
    await startNode("home-pc");
    const work = await startNode("work-server");
    await startNode("laptop");
    await work.stop();
    await waitFor(() => t.router.registry.get("work-server")?.status === "offline");
    expect(await say("@work-server deploy")).toMatch(
      /^⚠️ work-server is offline \(last seen \d+s ago\)\. Use \/nodes/,
    );
    expect(routingCalls()).toBe(0);
  });

  it("3. one online node gets the message without the LLM, even when others are known but offline", async () => {
    await startRouter();
    const home = await startNode("home-pc");
    await startNode("work-server");
    await home.stop();
    await waitFor(() => t.router.registry.get("home-pc")?.status === "offline");
    expect(await say("hello")).toBe("[work-server] work-server: hello");
    expect(routingCalls()).toBe(0);
  });

  it("3. …but a message is not quietly moved off the user's chosen node when that one is offline", async () => {
    await startRouter();
    const home = await startNode("home-pc");
    await startNode("work-server");
    await say("/node home-pc");
    await home.stop();
    await waitFor(() => t.router.registry.get("home-pc")?.status === "offline");
    const reply = await say("deploy");
    expect(reply).toMatch(/^⚠️ home-pc is offline \(last seen \d+s ago\)/);
    expect(reply).toContain("Online now: work-server — start a message with @<name>");
    expect(routingCalls()).toBe(0);
  });

  it("4. a message continuing the active coding session goes to the node that owns it, without the LLM", async () => {
    await startRouter();
    await startNode("home-pc");
    const work = await startNode("work-server");
    await startNode("laptop");
    work.push({ type: "sessions_update", sessions: [session("3")] });
    await waitFor(() => t.router.registry.get("work-server")?.sessions.length === 1);

    // No active node chosen yet: the session owner is the obvious target.
    expect(await say("now add tests for the parser")).toBe(
      "[work-server] work-server: now add tests for the parser",
    );
    // The owner is the active node now; messages keep going there.
    expect(await say("and run them")).toBe("[work-server] work-server: and run them");
    expect(routingCalls()).toBe(0);
  });

  it("4. another user's session, or a session the user left, does not pull their messages", async () => {
    await startRouter();
    await startNode("home-pc");
    const work = await startNode("work-server");
    work.push({
      type: "sessions_update",
      sessions: [session("1", { user_id: memoryId("someone-else") }), session("2", { active: false })],
    });
    await waitFor(() => t.router.registry.get("work-server")?.sessions.length === 2);
    llm.script(routeTo("home-pc"));
    expect(await say("what time is it?")).toBe("[home-pc] home-pc: what time is it?");
    expect(routingCalls()).toBe(1);
    // /nodes lists only this user's sessions.
    const nodes = await say("/nodes");
    expect(nodes).toMatch(/^ {2}work-server\s+sessions=1\s+online/m);
    expect(nodes).toMatch(/^ {6}#2 claude todo_app$/m);
    expect(nodes).not.toContain("#1");
  });

  it("5. the routing LLM is shown the nodes, their sessions and the active marker, and its choice is followed", async () => {
    await startRouter();
    await startNode("home-pc");
    const work = await startNode("work-server", { DISPLAY_NAME: "Work Box" });
    await startNode("laptop");
    await say("/node home-pc");
    work.push({
      type: "sessions_update",
      sessions: [session("7", { active: false, busy: true, project: "api" })],
    });
    await waitFor(() => t.router.registry.get("work-server")?.sessions.length === 1);

    llm.script(routeTo("work-server"));
    expect(await say("how is the api refactor going?")).toBe(
      "[work-server] work-server: how is the api refactor going?",
    );
    expect(routingCalls()).toBe(1);
    const request = llm.requests[0];
    expect(request?.model).toBe("router-model");
    expect(llm.toolNames(request).sort()).toEqual(["ask_user", "route_to"]);
    expect(request?.messages.map((m) => m.role)).toEqual(["system", "user"]); // single shot, no history
    expect(llm.lastUserText(request)).toBe("how is the api refactor going?");
    const prompt = systemPrompt(0);
    expect(prompt).toMatch(/^- home-pc \[ACTIVE\]: online for \d+s; capabilities: [^;]+; sessions: none$/m);
    expect(prompt).toMatch(
      /^- work-server "Work Box": online for \d+s; capabilities: [^;]+; sessions: #7 claude in api \(busy\)$/m,
    );
    expect(prompt).toMatch(/^- laptop: online/m);
    // The choice made work-server active: the next plain message goes there if the model says so.
    expect(await activeNodeIs()).toBe("work-server");
    llm.script(routeTo("work-server"));
    expect(await say("and the tests?")).toBe("[work-server] work-server: and the tests?");
    expect(systemPrompt()).toMatch(/^- work-server "Work Box" \[ACTIVE\]/m);
  });

  it("5. an ambiguous message: the routing LLM's ask_user question reaches the user", async () => {
    await startRouter();
    await startNode("home-pc");
    await startNode("work-server");
    llm.script({
      toolCalls: [{ name: "ask_user", arguments: { question: "Which machine: home-pc or work-server?" } }],
    });
    const reply = await say("check the disk space");
    expect(reply).toBe(
      "🤔 Which machine: home-pc or work-server?\n(Reply with @<node> <message>, or switch with /node <name>.)",
    );
    expect(await say("@home-pc check the disk space")).toBe("[home-pc] home-pc: check the disk space");
    expect(routingCalls()).toBe(1);
  });

  it("6. routing LLM down, slow, or answering an unknown node: the message goes to the active node", async () => {
    await startRouter({ ROUTER_LLM_TIMEOUT_S: 0.5 });
    await startNode("home-pc");
    await startNode("work-server");
    await say("/node work-server");

    llm.script({ status: 500 });
    expect(await say("one")).toBe("[work-server] work-server: one");
    llm.script({ delayMs: 5000, reply: routeTo("home-pc") });
    const started = Date.now();
    expect(await say("two")).toBe("[work-server] work-server: two");
    expect(Date.now() - started).toBeLessThan(4000); // the timeout, not the model, decided
    llm.script(routeTo("mainframe"));
    expect(await say("three")).toBe("[work-server] work-server: three");
    llm.script({ toolCalls: [{ name: "route_to", arguments: "{not json" }] });
    expect(await say("four")).toBe("[work-server] work-server: four");
    // Prose instead of a tool call (the unscripted fallback).
    expect(await say("five")).toBe("[work-server] work-server: five");
    expect(routingCalls()).toBe(5);
  });

  it("6. routing LLM failing with no active node: the user is asked to choose, nothing is dropped", async () => {
    await startRouter();
    await startNode("home-pc");
    await startNode("work-server");
    llm.script({ status: 503 });
    expect(await say("status?")).toBe(
      "You have several nodes online: home-pc, work-server. Choose one with /node <name>, or start a message with @<name>.",
    );
  });

  it("6. with no routing LLM configured, several nodes route to the active node and never call a model", async () => {
    t = await startTestRouter();
    await startNode("home-pc");
    await startNode("work-server");
    await say("/node home-pc");
    expect(await say("hi")).toBe("[home-pc] home-pc: hi");
    expect(routingCalls()).toBe(0);
  });

  it("the ROUTER_LLM_* keys default to OPENAI_*", async () => {
    t = await startTestRouter({
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: "shared",
      OPENAI_MODEL: "shared-model",
    });
    await startNode("home-pc");
    await startNode("work-server");
    llm.script({ ...routeTo("home-pc"), usage: { prompt_tokens: 120, completion_tokens: 7 } });
    expect(await say("hello")).toBe("[home-pc] home-pc: hello");
    expect(llm.requests[0]?.model).toBe("shared-model");
    // Its usage is kept in router.db; a forged block (negative, absurd) counts as 0.
    llm.script({ ...routeTo("work-server"), usage: { prompt_tokens: -1, completion_tokens: 1e30 } });
    expect(await say("and you?")).toBe("[work-server] work-server: and you?");
    const db = openRouterDatabase(routerDatabasePath(t.config.DATA_DIR));
    try {
      expect(new RoutingUsage(db, Date.now).totals(USER_ID, 0)).toEqual({
        calls: 2,
        input: 120,
        cachedInput: 0,
        output: 7,
      });
    } finally {
      db.close();
    }
  });

  it("task completions and notifications are tagged with the node's name when the user has several nodes", async () => {
    await startRouter();
    const home = await startNode("home-pc");
    home.push({ type: "notify", user_id: USER_ID, text: "just me" });
    await waitFor(() => t.chat.textsFor(USER).includes("just me"));
    const work = await startNode("work-server");
    work.push({ type: "notify", user_id: USER_ID, text: "build finished" });
    await waitFor(() => t.chat.textsFor(USER).includes("[work-server] build finished"));
    home.push({
      type: "task_complete",
      task_id: "9",
      user_id: USER_ID,
      ok: true,
      description: "npm test",
      output: "42 passed",
      elapsed_ms: 2000,
    });
    await waitFor(() => t.chat.textsFor(USER).some((m) => m.startsWith("[home-pc] ✅ Task #9 done")));
  });

  it("/health shows each node's sessions and how long it has been online or away", async () => {
    await startRouter();
    await startNode("home-pc");
    const work = await startNode("work-server");
    work.push({ type: "sessions_update", sessions: [session("3")] });
    await waitFor(() => t.router.registry.get("work-server")?.sessions.length === 1);
    const health = (await (await fetch(`${t.url}/health`, adminHeaders)).json()) as {
      nodes: Array<Record<string, unknown>>;
    };
    const work_ = health.nodes.find((n) => n.node_id === "work-server");
    expect(work_).toMatchObject({ status: "online", online_for: expect.stringMatching(/^\d+s$/) });
    expect(work_?.sessions).toEqual([expect.objectContaining({ id: "3", user_id: USER_ID, active: true })]);
  });
});

describe("findExplicitTarget", () => {
  const node = (nodeId: string, displayName = nodeId) =>
    ({ nodeId, displayName }) as Parameters<typeof findExplicitTarget>[1][number];
  const nodes = [node("work"), node("work-server", "Work Server"), node("home-pc")];

  it.each([
    ["@work-server run tests", "work-server", "run tests"],
    ["@work run tests", "work", "run tests"],
    ["on work-server: run tests", "work-server", "run tests"],
    ["On Work Server： 跑测试", "work-server", "跑测试", true],
    ["@WORK-SERVER, hi", "work-server", "hi"],
    ["@home-pc", "home-pc", ""],
  ] as const)("%s → %s", (text, nodeId, rest, byName?: true) => {
    expect(findExplicitTarget(text, nodes)).toEqual({
      kind: "node",
      node: expect.objectContaining({ nodeId }),
      rest,
      ...(byName ? { byName } : {}),
    });
  });

  it.each(["email work-server@example.com", "on work-server we have three disks", "what runs on home-pc?"])(
    "%s → no explicit target",
    (text) => {
      expect(findExplicitTarget(text, nodes)).toBeUndefined();
    },
  );

  // A typo must never fall through to the active node: "@hom-pc /shell pwd" runs nowhere.
  it.each([
    ["@work-servers hi", "work-servers"],
    ["@mainframe hi", "mainframe"],
    ["@hom-pc /shell pwd", "hom-pc"],
  ])("%s → unknown node %s", (text, name) => {
    expect(findExplicitTarget(text, nodes)).toEqual({ kind: "unknown", name, sameName: [] });
  });

  it("an id always wins, even over a longer display name that begins with it", () => {
    const squatted = [node("alice-pc"), node("bob-pc", "alice-pc /shell")];
    expect(findExplicitTarget("@alice-pc /shell cat ~/notes.txt", squatted)).toEqual({
      kind: "node",
      node: expect.objectContaining({ nodeId: "alice-pc" }),
      rest: "/shell cat ~/notes.txt",
    });
    expect(findExplicitTarget("@Home hi", [node("home"), node("pc", "Home PC")])).toMatchObject({
      node: { nodeId: "home" },
      rest: "hi",
    });
  });

  it("ids are matched before display names; two nodes answering to one name is a question", () => {
    const twins = [node("a", "Laptop"), node("b", "Laptop"), node("laptop", "Other")];
    expect(findExplicitTarget("@laptop hi", twins)).toMatchObject({
      kind: "node",
      node: { nodeId: "laptop" },
    });
    const onlyNames = [node("a", "Laptop"), node("b", "laptop")];
    expect(findExplicitTarget("@Laptop hi", onlyNames)).toMatchObject({
      kind: "unknown",
      sameName: [{ nodeId: "a" }, { nodeId: "b" }],
    });
  });
});
