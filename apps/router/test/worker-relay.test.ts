import { WORKERS_CAPABILITY } from "@phonework/protocol";
import { connectFakeNode, type FakeNode, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { memoryId, onCleanup, SECRET, startTestRouter, type TestRouter } from "./support.ts";

// Master/Worker frames between fake hosts over real sockets, tried as a hostile host would: a
// node may only reach the nodes of a user it serves, only for a plan that user started on it, and
// never speak under another node's name.

const U1 = memoryId("u1");

/** A fake host admitted by the shared secret, serving u1 and running workers unless told otherwise. */
async function join(t: TestRouter, nodeId: string, fields: Record<string, unknown> = {}): Promise<FakeNode> {
  const node = await connectFakeNode({ url: t.nodeUrl, secret: SECRET });
  onCleanup(() => node.kill());
  const answer = await node.register({
    node_id: nodeId,
    display_name: nodeId,
    serves_users: ["u1"],
    capabilities: [WORKERS_CAPABILITY],
    ...fields,
  });
  expect(answer.type).toBe("register_ok");
  return node;
}

/**
 * Resolves once the router has handled everything `node` sent before: a frame the router answers
 * at once, on the same socket. Anything the router sent to `node` before that has arrived too.
 */
async function flush(node: FakeNode): Promise<void> {
  node.send("not json");
  await node.inbox.next("error", (f) => f.message === "frame is not valid JSON");
}

const task = (fields: Record<string, unknown> = {}) => ({
  type: "worker_task",
  task_id: "w-1",
  user_id: U1,
  platform: "memory",
  node: "work-srv",
  objective: "Run the test suite and list the failing tests",
  context: "the user wants to know what to fix first",
  skills: ["run_shell"],
  ttl_s: 300,
  ...fields,
});

const result = (fields: Record<string, unknown> = {}) => ({
  type: "worker_result",
  task_id: "w-1",
  user_id: U1,
  node: "home-pc",
  outcome: "completed",
  result: { task_id: "w-1", status: "success", result: "3 tests fail", duration: 41 },
  delivery_id: "worker-w-1",
  ...fields,
});

/** A router with master home-pc and worker work-srv, both serving u1, and task w-1 relayed between them. */
async function withTask() {
  const t = await startTestRouter();
  const master = await join(t, "home-pc");
  const worker = await join(t, "work-srv");
  const grant = await requestTo(t, master, "home-pc");
  master.send(task(grant));
  await worker.inbox.next("worker_task");
  return { t, master, worker, grant };
}

/** What a master's task names of its plan: a plan started in the turn of request `request_id`. */
type Grant = { plan_id: string; request_id: string };

/**
 * A message from `user` that the router forwards to `nodeId` (`node` is that node's socket): the
 * request a plan started in its turn names. Resolves with that grant for plan `planId`.
 */
async function requestTo(t: TestRouter, node: FakeNode, nodeId: string, user = "u1", planId = "p-1") {
  await t.chat.receive({ userId: user, text: `@${nodeId} run the release checks on my machines` });
  const forward = await node.inbox.next("forward", (f) => f.user_id === memoryId(user));
  return { plan_id: planId, request_id: String(forward.id) } satisfies Grant;
}

const statusOf = (node: FakeNode, taskId: string) =>
  node.inbox.next("worker_status", (f) => f.task_id === taskId);

describe("worker tasks", () => {
  it("relays a task to its target as from the real sender, and the target's accept back as from the target", async () => {
    const t = await startTestRouter();
    const master = await join(t, "home-pc");
    const worker = await join(t, "work-srv");
    await join(t, "laptop");
    const grant = await requestTo(t, master, "home-pc");
    // The chat it claims is not where the plan came from: the router's record of the request is.
    master.send(task({ ...grant, from_node: "laptop", platform: "memory", chat_id: "memory:chat-u2" }));
    const relayed = await worker.inbox.next("worker_task");
    expect(relayed).toEqual({ ...task(grant), from_node: "home-pc", chat_id: "memory:chat-u1" });

    worker.send({ type: "worker_status", task_id: "w-1", ok: true, from_node: "laptop" });
    expect(await statusOf(master, "w-1")).toEqual({
      type: "worker_status",
      task_id: "w-1",
      ok: true,
      from_node: "work-srv",
    });
  });

  it("refuses at once a target that is unknown, serves someone else, is offline, runs no workers, or is the sender", async () => {
    const t = await startTestRouter();
    const master = await join(t, "home-pc");
    const stranger = await join(t, "other", { serves_users: ["u2"] });
    const old = await join(t, "old-pc", { capabilities: [] });
    const gone = await join(t, "laptop");
    gone.close();
    await waitFor(() => t.router.registry.get("laptop")?.status === "offline");

    const refusal = async (node: string) => {
      master.send(task({ task_id: `w-${node}`, node }));
      const status = await statusOf(master, `w-${node}`);
      expect(status).toMatchObject({ ok: false, from_node: node });
      return status.error;
    };
    // Whether a node exists is none of a stranger's business: both read the same.
    expect(await refusal("ghost")).toEqual({ code: "UNAUTHORIZED", message: 'no node "ghost" serves you' });
    expect(await refusal("other")).toEqual({ code: "UNAUTHORIZED", message: 'no node "other" serves you' });
    expect(await refusal("laptop")).toEqual({
      code: "NODE_OFFLINE",
      message: 'node "laptop" is not connected',
    });
    expect(await refusal("old-pc")).toEqual({
      code: "BAD_FRAME",
      message: 'node "old-pc" cannot run workers (upgrade it)',
    });
    expect(await refusal("home-pc")).toMatchObject({
      code: "BAD_FRAME",
      message: expect.stringContaining("locally"),
    });
    for (const node of [stranger, old]) {
      await flush(node);
      expect(node.inbox.ofType("worker_task")).toEqual([]);
    }
  });

  it("refuses a master that does not serve the task's user, even towards a node that does", async () => {
    const t = await startTestRouter();
    const intruder = await join(t, "intruder", { serves_users: ["u2"] });
    const worker = await join(t, "work-srv");
    intruder.send(task({ from_node: "home-pc" }));
    expect((await statusOf(intruder, "w-1")).error).toEqual({
      code: "UNAUTHORIZED",
      message: 'node "intruder" does not serve this user',
    });
    await flush(worker);
    expect(worker.inbox.ofType("worker_task")).toEqual([]);
  });

  it("refuses a task id another master has in flight, and a master past its share of the in-flight table", async () => {
    const { t, master, worker, grant } = await withTask();
    const other = await join(t, "laptop");
    const otherGrant = await requestTo(t, other, "laptop");
    other.send(task(otherGrant));
    expect((await statusOf(other, "w-1")).error).toMatchObject({ code: "BAD_FRAME" });

    for (let i = 2; i <= 1001; i++) master.send(task({ ...grant, task_id: `w-${i}` }));
    expect((await statusOf(master, "w-1001")).error).toMatchObject({ code: "QUEUE_FULL" });
    await flush(worker);
    expect(worker.inbox.ofType("worker_task")).toHaveLength(1000);
    expect(worker.inbox.ofType("worker_task").filter((f) => f.from_node !== "home-pc")).toEqual([]);
    // One master's flood does not lock the others out.
    other.send(task({ ...otherGrant, task_id: "l-1" }));
    expect(await worker.inbox.next("worker_task", (f) => f.task_id === "l-1")).toMatchObject({
      from_node: "laptop",
    });
  });

  it("a worker that drops mid-task fails the task at its master with NODE_OFFLINE", async () => {
    const { master, worker } = await withTask();
    worker.kill();
    expect(await statusOf(master, "w-1")).toEqual({
      type: "worker_status",
      task_id: "w-1",
      ok: false,
      from_node: "work-srv",
      error: { code: "NODE_OFFLINE", message: 'node "work-srv" went offline while running it' },
    });
  });

  it("a worker_status from a node the task was not given to is dropped", async () => {
    const { t, master, worker } = await withTask();
    const third = await join(t, "laptop");
    third.send({
      type: "worker_status",
      task_id: "w-1",
      ok: false,
      error: { code: "CANCELLED", message: "x" },
    });
    await flush(third);
    await flush(master);
    expect(master.inbox.ofType("worker_status")).toEqual([]);
    worker.send({ type: "worker_status", task_id: "w-1", ok: true });
    expect(await statusOf(master, "w-1")).toMatchObject({ ok: true, from_node: "work-srv" });
  });
});

describe("a node shared with a user cannot act as that user on the user's other nodes", () => {
  /** bob-pc serves u2 (its owner) and u1 (shared with); alice-pc is u1's own. */
  async function sharedNode() {
    const t = await startTestRouter();
    const bob = await join(t, "bob-pc", { serves_users: ["u1", "u2"] });
    const alice = await join(t, "alice-pc");
    const refused = async (taskId: string, fields: Record<string, unknown>) => {
      bob.send(task({ task_id: taskId, node: "alice-pc", ...fields }));
      const status = await statusOf(bob, taskId);
      expect(status).toMatchObject({ ok: false, from_node: "alice-pc", error: { code: "UNAUTHORIZED" } });
      return String((status.error as { message?: string } | undefined)?.message);
    };
    return { t, bob, alice, refused };
  }

  it("refuses a task for a plan u1 never started on bob-pc: none named, another node's request, another user's, made up", async () => {
    const { t, bob, alice, refused } = await sharedNode();
    expect(await refused("w-none", {})).toMatch(/names no plan and request/);
    // A request of u1's that went to alice-pc, and one of u2's that went to bob-pc.
    const leaked = await requestTo(t, alice, "alice-pc");
    expect(await refused("w-leaked", leaked)).toMatch(
      /no message from this user was forwarded to node "bob-pc"/,
    );
    const own = await requestTo(t, bob, "bob-pc", "u2");
    expect(await refused("w-u2", own)).toMatch(/no message from this user was forwarded/);
    expect(await refused("w-made-up", { plan_id: "p-1", request_id: "guessed" })).toMatch(
      /no message from this user/,
    );
    await flush(alice);
    expect(alice.inbox.ofType("worker_task")).toEqual([]);
    expect(t.logs().some((line) => line.msg === "worker task refused" && line.level === 40)).toBe(true);
  });

  it("relays work u1 started on bob-pc, for that plan only, and no more plans than one request may start", async () => {
    const { t, bob, alice, refused } = await sharedNode();
    const grant = await requestTo(t, bob, "bob-pc");
    bob.send(task({ ...grant, task_id: "w-1", node: "alice-pc" }));
    expect(await alice.inbox.next("worker_task")).toMatchObject({ task_id: "w-1", from_node: "bob-pc" });
    // The plan is bound to its request: it cannot be claimed for another one of u1's.
    const later = await requestTo(t, bob, "bob-pc");
    expect(await refused("w-rebound", { ...later, plan_id: grant.plan_id })).toMatch(
      /plan "p-1" was not started by this user's request/,
    );
    for (let i = 2; i <= 10; i++) {
      bob.send(task({ ...grant, plan_id: `p-${i}`, task_id: `w-p${i}`, node: "alice-pc" }));
      await alice.inbox.next("worker_task", (f) => f.task_id === `w-p${i}`);
    }
    expect(await refused("w-p11", { ...grant, plan_id: "p-11" })).toMatch(/already started 10 plans/);
  });
});

describe("worker results", () => {
  it("reach the master as from the worker; the worker's push_ack waits for the master's ack", async () => {
    const { master, worker } = await withTask();
    worker.send(result({ from_node: "laptop" }));
    const relayed = await master.inbox.next("worker_result");
    expect(relayed).toMatchObject({
      task_id: "w-1",
      node: "home-pc",
      from_node: "work-srv",
      delivery_id: "worker-w-1",
    });
    await flush(worker);
    expect(worker.inbox.ofType("push_ack")).toEqual([]);

    master.send({ type: "worker_result_ack", delivery_id: "worker-w-1" });
    expect(await worker.inbox.next("push_ack")).toEqual({
      type: "push_ack",
      delivery_id: "worker-w-1",
      ok: true,
    });
    // An ack for nothing relayed (again, or made up) is ignored.
    master.send({ type: "worker_result_ack", delivery_id: "worker-w-1" });
    master.send({ type: "worker_result_ack", delivery_id: "made-up" });
    await flush(master);
    await flush(worker);
    expect(worker.inbox.ofType("push_ack")).toHaveLength(1);
  });

  it("only the master a result went to can acknowledge it", async () => {
    const { t, master, worker } = await withTask();
    const third = await join(t, "laptop");
    worker.send(result());
    await master.inbox.next("worker_result");
    third.send({ type: "worker_result_ack", delivery_id: "worker-w-1" });
    await flush(third);
    await flush(worker);
    expect(worker.inbox.ofType("push_ack")).toEqual([]);
    master.send({ type: "worker_result_ack", delivery_id: "worker-w-1" });
    expect(await worker.inbox.next("push_ack")).toMatchObject({ delivery_id: "worker-w-1", ok: true });
  });

  it("for a master that is offline stay with the worker (NODE_OFFLINE, retry_after_s, no push_ack) and arrive once it is back", async () => {
    const { t, master, worker } = await withTask();
    master.close();
    await waitFor(() => t.router.registry.get("home-pc")?.status === "offline");
    worker.send(result());
    expect(await worker.inbox.next("error", (f) => f.delivery_id === "worker-w-1")).toMatchObject({
      code: "NODE_OFFLINE",
      retry_after_s: 5,
    });
    await flush(worker);
    expect(worker.inbox.ofType("push_ack")).toEqual([]);

    const back = await join(t, "home-pc");
    worker.send(result());
    expect(await back.inbox.next("worker_result")).toMatchObject({
      from_node: "work-srv",
      delivery_id: "worker-w-1",
    });
    back.send({ type: "worker_result_ack", delivery_id: "worker-w-1" });
    expect(await worker.inbox.next("push_ack")).toMatchObject({ delivery_id: "worker-w-1", ok: true });
  });

  it("are refused for good when the master or the worker does not serve the user, or the task was not the sender's", async () => {
    const { t, master, worker } = await withTask();
    const stranger = await join(t, "other", { serves_users: ["u2"] });
    const third = await join(t, "laptop");
    const refusal = async (node: FakeNode, deliveryId: string, fields: Record<string, unknown>) => {
      node.send(result({ delivery_id: deliveryId, ...fields }));
      const ack = await node.inbox.next("push_ack", (f) => f.delivery_id === deliveryId);
      expect(ack.ok).toBe(false);
      return ack.error;
    };
    expect(await refusal(worker, "r1", { node: "other" })).toBe(`no node "other" serves user ${U1}`);
    expect(await refusal(worker, "r2", { node: "ghost" })).toBe(`no node "ghost" serves user ${U1}`);
    expect(await refusal(stranger, "r3", {})).toBe(`node other does not serve user ${U1}`);
    // A node of the same user cannot answer for a task given to another.
    expect(await refusal(third, "r4", {})).toBe('task "w-1" was not given to node laptop');
    for (const node of [master, stranger]) {
      await flush(node);
      expect(node.inbox.ofType("worker_result")).toEqual([]);
    }
  });
});

describe("worker cancels", () => {
  it("are relayed only from the task's master to its worker, both serving the user", async () => {
    const { t, master, worker } = await withTask();
    const stranger = await join(t, "other", { serves_users: ["u2"] });
    const third = await join(t, "laptop");
    const cancel = (fields: Record<string, unknown> = {}) => ({
      type: "worker_cancel",
      task_id: "w-1",
      user_id: U1,
      node: "work-srv",
      reason: "stopped by the user",
      ...fields,
    });
    stranger.send(cancel({ from_node: "home-pc" })); // serves someone else
    third.send(cancel({ from_node: "home-pc" })); // serves u1, but the task is home-pc's
    master.send(cancel({ node: "other" })); // to a node that does not serve u1
    for (const node of [stranger, third, master]) await flush(node);
    await flush(worker);
    await flush(stranger);
    expect(worker.inbox.ofType("worker_cancel")).toEqual([]);
    expect(stranger.inbox.ofType("worker_cancel")).toEqual([]);

    master.send(cancel({ from_node: "laptop" }));
    expect(await worker.inbox.next("worker_cancel")).toEqual({ ...cancel(), from_node: "home-pc" });
    // Cancelled: the task is no longer in flight, so a late status from its worker goes nowhere.
    worker.send({ type: "worker_status", task_id: "w-1", ok: true });
    await flush(worker);
    await flush(master);
    expect(master.inbox.ofType("worker_status")).toEqual([]);
  });
});
