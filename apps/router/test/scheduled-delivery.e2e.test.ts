import {
  connectFakeNode,
  type FakeOpenAI,
  type SpawnedProcess,
  spawnHostApp,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { MemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import { memoryId, onCleanup, SECRET, startTestHost, startTestRouter, tempDataDir } from "./support.ts";

// Reminders that survive outages: the host killed over the due time (a real `pnpm host` process,
// SIGKILL), the router down at the due time, and a pushed item delivered twice on the wire —
// each test counts what the user saw.

const USER = "u1";
/** The host's SCHEDULE_LATE_AFTER_S, in ms. */
const LATE_AFTER_MS = 500;

function spawnHost(nodeUrl: string, dataDir: string, model: FakeOpenAI): SpawnedProcess {
  const { host, cleanup } = spawnHostApp({
    routerUrl: nodeUrl,
    secret: SECRET,
    nodeId: "home-pc",
    dataDir,
    env: {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test",
      SCHEDULER_TICK_S: "0.2",
      SCHEDULE_LATE_AFTER_S: String(LATE_AFTER_MS / 1000),
      TIME_ZONE: "UTC",
    },
  });
  onCleanup(cleanup);
  return host;
}

async function startModel(): Promise<FakeOpenAI> {
  const model = await startFakeOpenAI({ apiKey: "sk-test" });
  onCleanup(() => model.close());
  return model;
}

/**
 * Until a reminder set `delayMs` from a moment no later than `setBy` is late: due, and past the
 * host's lateness margin. What the test waits for here is the wall clock itself.
 */
async function untilLate(setBy: number, delayMs: number): Promise<void> {
  const lateAt = setBy + delayMs + LATE_AFTER_MS;
  await waitFor(() => Date.now() > lateAt, {
    timeoutMs: lateAt - Date.now() + 5000,
    message: "the due time",
  });
}

const WITNESS = "sweep witness";

/**
 * A reminder due at once, set after what the test counts was delivered. Once it is in the chat the
 * scheduler has swept again since then, and everything that sweep or an earlier one queued was
 * delivered before it (the outbox sends in order): a repeat would be here by now.
 */
async function sweepWitness(chat: MemoryChatAdapter): Promise<void> {
  chat.receive({ userId: USER, text: `/remind 0.01s ${WITNESS}` });
  await waitFor(() => chat.textsFor(USER).includes(`⏰ ${WITNESS}`), { message: "the witness reminder" });
}

describe("scheduled messages across outages", () => {
  it("host killed before the due time, restarted after it: catch_up sends exactly one late reminder", async () => {
    const t = await startTestRouter();
    const model = await startModel();
    const dataDir = tempDataDir();
    let host = spawnHost(t.nodeUrl, dataDir, model);
    await waitFor(() => t.router.registry.get("home-pc")?.status === "online");

    t.chat.receive({ userId: USER, text: "/remind 2s water the plants" });
    await waitFor(() => t.chat.textsFor(USER).some((m) => m.startsWith("⏰ Scheduled #1")));
    const setBy = Date.now();
    host.kill("SIGKILL");
    await host.exited;
    await untilLate(setBy, 2000); // the due time passes while the host is dead

    host = spawnHost(t.nodeUrl, dataDir, model);
    const late = await waitFor(() =>
      t.chat.textsFor(USER).find((m) => m.includes("water the plants") && m.includes("late")),
    );
    expect(late).toMatch(
      /^⏰ \(late: was due \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\); this host was offline\) water the plants$/,
    );
    await sweepWitness(t.chat); // more sweeps: nothing more may arrive
    const seen = t.chat
      .textsFor(USER)
      .filter((m) => m.includes("water the plants") && !m.startsWith("⏰ Scheduled"));
    expect({
      delivered: seen.length,
      lost: 1 - Math.min(seen.length, 1),
      duplicated: Math.max(seen.length - 1, 0),
    }).toEqual({
      delivered: 1,
      lost: 0,
      duplicated: 0,
    });
  });

  it("host killed over the due time with if_missed skip: one 'missed' notice, the reminder itself is not sent", async () => {
    const t = await startTestRouter();
    const model = await startModel();
    const dataDir = tempDataDir();
    let host = spawnHost(t.nodeUrl, dataDir, model);
    await waitFor(() => t.router.registry.get("home-pc")?.status === "online");

    model.script(
      {
        toolCalls: [{ name: "schedule", arguments: { delay: "2s", message: "call mum", if_missed: "skip" } }],
      },
      { text: "Scheduled." },
    );
    t.chat.receive({ userId: USER, text: "remind me to call mum in 2 seconds, but only on time" });
    await waitFor(() => t.chat.textsFor(USER).includes("Scheduled."));
    const setBy = Date.now();
    host.kill("SIGKILL");
    await host.exited;
    await untilLate(setBy, 2000);

    host = spawnHost(t.nodeUrl, dataDir, model);
    const notice = await waitFor(() =>
      t.chat.textsFor(USER).find((m) => m.startsWith("⏭️ Missed reminder #1")),
    );
    expect(notice).toMatch(/"call mum"\. It was not sent because this host was offline then\.$/);
    await sweepWitness(t.chat);
    const seen = t.chat.textsFor(USER).filter((m) => m.includes("call mum") && !m.startsWith("… "));
    expect(seen).toEqual([notice]);
    expect(t.chat.textsFor(USER).filter((m) => m.startsWith("⏰") && !m.includes(WITNESS))).toEqual([]);
  });

  it("router down at the due time: the reminder is held and delivered exactly once when it is back", async () => {
    const routerData = tempDataDir();
    const first = await startTestRouter({ DATA_DIR: routerData });
    const port = Number(new URL(first.url).port);
    const host = startTestHost(first.nodeUrl, {
      NODE_ID: "home-pc",
      SCHEDULER_TICK_S: 0.1,
      RECONNECT_MAX_DELAY_S: 0.2,
    });
    await host.ready();
    first.chat.receive({ userId: USER, text: "/remind 1s stand up" });
    await waitFor(() => first.chat.textsFor(USER).some((m) => m.startsWith("⏰ Scheduled #1")));

    await first.router.close({ drainMs: 0 });
    await waitFor(() => host.jobs.get(1)?.status === "sent", { timeoutMs: 5000 }); // fired while the router is down
    expect(host.outbox.pending()).toBe(1);
    expect(host.jobs.get(1)?.sent_at).toBeNull();

    const second = await startTestRouter({ DATA_DIR: routerData, ROUTER_PORT: port });
    await waitFor(() => second.chat.textsFor(USER).includes("⏰ stand up"));
    await waitFor(() => host.outbox.pending() === 0);
    expect(host.jobs.get(1)?.sent_at).not.toBeNull();
    await sweepWitness(second.chat);
    const seen = [...first.chat.textsFor(USER), ...second.chat.textsFor(USER)].filter(
      (m) => m === "⏰ stand up",
    );
    expect({ delivered: seen.length, duplicated: seen.length - 1 }).toEqual({ delivered: 1, duplicated: 0 });
  });

  it("the same delivery id sent again (new connection, restarted router) is shown once and acknowledged each time", async () => {
    const routerData = tempDataDir();
    let t = await startTestRouter({ DATA_DIR: routerData });
    const port = Number(new URL(t.url).port);
    const notify = {
      type: "notify",
      user_id: memoryId(USER),
      platform: "memory",
      chat_id: memoryId("c1"),
      text: "build finished",
      delivery_id: "d-1",
    };
    const connect = async () => {
      const node = await connectFakeNode({ url: t.nodeUrl, secret: SECRET });
      onCleanup(() => node.kill());
      await node.register({ node_id: "builder", serves_users: [USER] });
      return node;
    };

    let node = await connect();
    node.send(notify);
    expect(await node.inbox.next(["push_ack"])).toMatchObject({
      delivery_id: "d-1",
      ok: true,
      message_id: expect.any(String),
    });
    node.send(notify); // same connection
    expect(await node.inbox.next(["push_ack"])).toMatchObject({ delivery_id: "d-1", ok: true });
    node.kill();
    node = await connect();
    node.send(notify); // after a reconnect, as the host's outbox does
    expect(await node.inbox.next(["push_ack"])).toMatchObject({ delivery_id: "d-1", ok: true });
    // (The node's disconnect/reconnect notices are there too; the item itself is there once.)
    expect(t.chat.textsFor(USER).filter((m) => m === "build finished")).toHaveLength(1);

    // The router restarts: what it delivered is remembered.
    node.kill();
    await t.router.close({ drainMs: 0 });
    t = await startTestRouter({ DATA_DIR: routerData, ROUTER_PORT: port });
    node = await connect();
    node.send(notify);
    expect(await node.inbox.next(["push_ack"])).toMatchObject({ delivery_id: "d-1", ok: true });
    node.send({ ...notify, delivery_id: "d-2", text: "tests passed" });
    expect(await node.inbox.next(["push_ack"])).toMatchObject({ delivery_id: "d-2", ok: true });
    expect(t.chat.textsFor(USER).filter((m) => m === "build finished")).toHaveLength(0);
    expect(t.chat.textsFor(USER).filter((m) => m === "tests passed")).toHaveLength(1);
  });
});
