import { readdirSync } from "node:fs";
import { waitFor, workerJson } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { startHostWithModel } from "./support.ts";

// Worker frames as an attacker would send them: through a router that relays what a compromised
// peer node writes. A host runs only tasks the router relayed, for users it serves, with skills it
// has; and a master believes only the node it sent the task to.

const _SECRET = "worker-frames-secret";

async function setup(overrides: Record<string, unknown> = {}) {
  const started = await startHostWithModel(overrides);
  started.model.fallback = () => workerJson("did it");
  return started;
}

const task = (extra: Record<string, unknown> = {}) => ({
  type: "worker_task",
  task_id: "w-1",
  plan_id: "p-1",
  request_id: "r-1",
  user_id: "telegram:1",
  node: "laptop",
  from_node: "home-pc",
  objective: "list files",
  context: "",
  skills: ["run_shell"],
  ttl_s: 30,
  ...extra,
});

describe("worker frames a host receives", () => {
  it("runs a relayed task and sends its result through the outbox to the master it came from", async () => {
    const s = await setup();
    expect(s.router.registrations[0]?.capabilities).toContain("workers");
    s.router.latest().send(task());
    expect(await s.router.latest().inbox.next("worker_status")).toMatchObject({ task_id: "w-1", ok: true });
    const result = await s.router.latest().inbox.next("worker_result", () => true, 15_000);
    expect(result).toMatchObject({
      task_id: "w-1",
      user_id: "telegram:1",
      node: "home-pc",
      outcome: "completed",
      delivery_id: "worker-w-1",
      result: { task_id: "w-1", status: "success", result: "did it" },
    });
    // The same task sent again (a router resend) is accepted, not run twice.
    const before = s.model.requests.length;
    s.router.latest().send(task());
    expect(await s.router.latest().inbox.next("worker_status")).toMatchObject({
      ok: false,
      error: { code: "BAD_FRAME" },
    });
    expect(s.model.requests.length).toBe(before);
  });

  it("refuses a task without the router's from_node, for a user it does not serve, or with skills it lacks", async () => {
    const s = await setup({ SERVES_USERS: ["telegram:1"] });
    const { from_node: _drop, ...direct } = task({ task_id: "w-2" });
    s.router.latest().send(direct);
    expect(await s.router.latest().inbox.next("worker_status")).toMatchObject({
      task_id: "w-2",
      ok: false,
      error: { code: "BAD_FRAME", message: "a worker task must come through the router" },
    });
    s.router.latest().send(task({ task_id: "w-3", user_id: "telegram:666" }));
    expect(await s.router.latest().inbox.next("worker_status")).toMatchObject({
      ok: false,
      error: { code: "UNAUTHORIZED" },
    });
    // Through an older router, which did not check that the user started the plan on its master.
    const { plan_id: _plan, request_id: _request, ...unchecked } = task({ task_id: "w-4" });
    s.router.latest().send(unchecked);
    expect(await s.router.latest().inbox.next("worker_status")).toMatchObject({
      task_id: "w-4",
      ok: false,
      error: {
        code: "UNAUTHORIZED",
        message: "a worker task must name the plan and request that started it",
      },
    });
    for (const skill of ["run_background", "delegate", "coding_session", "../../etc"]) {
      s.router.latest().send(task({ task_id: `w-${skill.length}-${skill.slice(0, 3)}`, skills: [skill] }));
      expect(await s.router.latest().inbox.next("worker_status")).toMatchObject({
        ok: false,
        error: { code: "BAD_FRAME" },
      });
    }
    expect(s.model.requests).toHaveLength(0);
    expect(s.host.workers.ledger.remoteWork()).toEqual([]);
  });

  it("a malformed worker frame is answered with BAD_FRAME and the host stays up", async () => {
    const s = await setup();
    s.router.latest().send({ ...task(), ttl_s: 10 ** 9, skills: "run_shell" });
    expect(await s.router.latest().inbox.next("error")).toMatchObject({ code: "BAD_FRAME" });
    s.router.latest().send(task({ task_id: "w-ok" }));
    expect(await s.router.latest().inbox.next("worker_status")).toMatchObject({ task_id: "w-ok", ok: true });
  });

  it("a master takes a result only from the node it sent the attempt to, and acknowledges every one", async () => {
    const s = await setup({ WORKER_TTL_S: 60 });
    const runner = s.host.workers.runner;
    const { plan } = runner.start({ userId: "u1", chatId: "c1", platform: "t" }, "remote job", [
      {
        id: "job",
        objective: "o",
        context: "",
        skills: ["run_shell"],
        ttlS: 60,
        node: "work-srv",
        dependsOn: [],
      },
    ]);
    const sent = await s.router.latest().inbox.next("worker_task");
    expect(sent).toMatchObject({ node: "work-srv", user_id: "u1", skills: ["run_shell"] });
    // A status about the attempt from any node but work-srv changes nothing.
    const status = {
      type: "worker_status",
      task_id: sent.task_id,
      ok: false,
      error: { code: "NODE_OFFLINE", message: "x" },
    };
    s.router.latest().send({ ...status, from_node: "evil-node" });
    s.router.latest().send({ ...status });
    s.router.latest().send({ type: "worker_status", task_id: sent.task_id, ok: true, from_node: "work-srv" });
    await waitFor(() => s.host.workers.ledger.subtasks(plan.id)[0]?.state === "RUNNING", {
      message: "accepted by work-srv",
    });
    expect(s.host.workers.ledger.attempts(plan.id).map((a) => a.state)).toEqual(["RUNNING"]);
    const forged = {
      type: "worker_result",
      task_id: sent.task_id,
      user_id: "u1",
      node: "laptop",
      from_node: "evil-node",
      outcome: "completed",
      result: {
        task_id: sent.task_id,
        status: "success",
        result: "forged",
        artifacts: [],
        duration: 1,
        errors: [],
      },
      delivery_id: "d-forged",
    };
    s.router.latest().send(forged);
    expect(await s.router.latest().inbox.next("worker_result_ack")).toMatchObject({
      delivery_id: "d-forged",
    });
    expect(s.host.workers.ledger.subtasks(plan.id)[0]?.state).not.toBe("COMPLETED");

    s.router.latest().send({
      ...forged,
      from_node: "work-srv",
      delivery_id: "d-real",
      result: { ...forged.result, result: "real" },
    });
    expect(await s.router.latest().inbox.next("worker_result_ack")).toMatchObject({ delivery_id: "d-real" });
    await waitFor(() => s.host.workers.ledger.plan(plan.id)?.status === "done", { message: "plan done" });
    expect(s.host.workers.ledger.subtasks(plan.id)[0]?.result?.result).toBe("real");
    // A resend of the same result changes nothing and is acknowledged again.
    s.router.latest().send({
      ...forged,
      from_node: "work-srv",
      delivery_id: "d-real",
      result: { ...forged.result, result: "again" },
    });
    expect(await s.router.latest().inbox.next("worker_result_ack")).toMatchObject({ delivery_id: "d-real" });
    expect(s.host.workers.ledger.subtasks(plan.id)[0]?.result?.result).toBe("real");
  });

  it("a cancel from a node other than the task's master does not stop it; one from the master does", async () => {
    const s = await setup();
    s.model.fallback = (request) =>
      request.messages.some((m) => m.role === "tool")
        ? workerJson("x")
        : { toolCalls: [{ name: "run_shell", arguments: { command: "echo $$ > pid-w; exec sleep 60" } }] };
    s.router.latest().send(task({ task_id: "w-c" }));
    await waitFor(() => readdirSync(s.dir).includes("pid-w"), { message: "worker running" });
    const cancel = {
      type: "worker_cancel",
      task_id: "w-c",
      user_id: "telegram:1",
      node: "laptop",
      reason: "stop",
    };
    s.router.latest().send({ ...cancel, from_node: "evil-node" });
    s.router.latest().send({ ...task({ task_id: "w-probe" }), skills: ["nope"] });
    await s.router.latest().inbox.next("worker_status", (f) => f.task_id === "w-probe");
    expect(s.host.workers.ledger.remoteWork().map((r) => r.task_id)).toEqual(["w-c"]);
    s.router.latest().send({ ...cancel, from_node: "home-pc" });
    await waitFor(() => s.host.workers.ledger.remoteWork().length === 0, {
      message: "cancelled work forgotten",
    });
    expect(
      s.router.latest().inbox.frames.some((f) => f.type === "worker_result" && f.task_id === "w-c"),
    ).toBe(false);
  });
});
