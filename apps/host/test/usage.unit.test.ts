import { join } from "node:path";
import { type ForwardFrame, OverviewUsage } from "@phonework/protocol";
import { ConfigError, loadConfig } from "@phonework/runtime";
import { createManualClock, createTestLogger, makeTempDir } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { HostConfigSchema } from "../src/config/host-config.ts";
import type { UsageTag } from "../src/contracts/usage-meter.ts";
import { meteredModel } from "../src/model/metered-model.ts";
import type { ModelClient } from "../src/model/model-client.ts";
import { openStateDatabase } from "../src/state-database.ts";
import { costOf, priceTable } from "../src/usage/model-prices.ts";
import { openUsage } from "../src/usage/open-usage.ts";
import { usageCommand } from "../src/usage/usage-command.ts";
import { usageOverview } from "../src/usage/usage-overview.ts";

// The usage store, prices, limits and /usage without a process: a state.db in a temp directory and
// a clock the test moves (retention, the day's reset).

const dir = makeTempDir();
afterAll(() => dir.remove());
const DAY = 24 * 3600 * 1000;

function world(env: Record<string, string> = {}) {
  const { config } = loadConfig(HostConfigSchema, {
    env: { NODE_ID: "pc", TIME_ZONE: "UTC", WORKING_DIR: dir.path, DATA_DIR: dir.path, ...env },
  });
  const db = openStateDatabase(join(dir.path, `state-${Math.random()}.db`));
  // Noon UTC, so "today" is unambiguous.
  const clock = createManualClock(Date.UTC(2026, 10, 20, 12));
  const notices: Array<{ userId: string; text: string }> = [];
  const usage = openUsage({
    config,
    db,
    now: clock.now,
    logger: createTestLogger("fatal").logger,
    notify: (to, text) => notices.push({ userId: to.userId, text }),
  });
  return { usage, clock, notices, db };
}

const tag = (userId: string, extra: Partial<UsageTag> = {}): UsageTag => ({
  userId,
  chatId: "c1",
  platform: "memory",
  kind: "turn",
  ...extra,
});
const request = (userId: string) => ({ user_id: userId }) as ForwardFrame;
const ctx = { signal: new AbortController().signal, progress: () => {} };

describe("usage counts, prices and keeps", () => {
  it("prices a model by its name or the longest listed prefix; MODEL_PRICES overrides; unknown is unpriced", () => {
    const price = priceTable({
      "my-model": { input: 1, cached: 0.5, output: 2 },
      "gpt-4o": { input: 5, output: 20 },
    });
    expect(price("gpt-4o-mini-2024-07-18")).toMatchObject({ input: 0.15 });
    expect(price("openai/gpt-4o-2024-08-06")).toEqual({ input: 5, output: 20 });
    expect(price("nobody-knows")).toBeUndefined();
    const cost = costOf(
      { model: "my-model", input: 1_000_000, cachedInput: 400_000, output: 100_000 },
      price("my-model"),
    );
    expect(cost).toBeCloseTo(0.6 + 0.2 + 0.2, 10);
  });

  it("a forged usage block (negative, NaN, huge, cached above input) counts as 0 and does not poison the totals", () => {
    const { usage } = world();
    usage.meter.record(tag("u"), { model: "m", input: 100, cachedInput: 10, output: 5 });
    const forged = usage.meter.record(tag("u"), {
      model: "m",
      input: -50,
      cachedInput: Number.NaN,
      output: 1e18,
      costUsd: Number.POSITIVE_INFINITY,
    });
    expect(forged).toMatchObject({ input: 0, cachedInput: 0, output: 0 });
    usage.meter.record(tag("u"), { model: "m", input: 3, cachedInput: 99, output: 2.4 });
    expect(usage.store.spentBy("u", 0)).toEqual({ tokens: 100 + 5 + 3 + 2, costUsd: 0 });
    expect(usage.store.groups("u", 0)[0]).toMatchObject({ calls: 3, input: 103, cachedInput: 13, output: 7 });
  });

  it("retention: rows older than USAGE_RETENTION_DAYS are deleted, newer ones kept", () => {
    const { usage, clock } = world({ USAGE_RETENTION_DAYS: "30" });
    usage.meter.record(tag("u"), { model: "m", input: 1, cachedInput: 0, output: 1 });
    clock.advance(20 * DAY);
    usage.meter.record(tag("u"), { model: "m", input: 2, cachedInput: 0, output: 2 });
    clock.advance(11 * DAY);
    expect(usage.prune()).toBe(1);
    expect(usage.store.count()).toBe(1);
    expect(usage.store.spentBy("u", 0).tokens).toBe(4);
  });
});

describe("limits", () => {
  it("warns once at 80%, refuses turns and workers at 100% with the reset time, never a session; resets the next day", () => {
    const { usage, clock, notices } = world({ USER_DAILY_TOKEN_LIMIT: "1000" });
    usage.meter.record(tag("u"), { model: "m", input: 700, cachedInput: 0, output: 0 });
    expect(notices).toEqual([]);
    usage.meter.record(tag("u"), { model: "m", input: 150, cachedInput: 0, output: 0 });
    usage.meter.record(tag("u"), { model: "m", input: 10, cachedInput: 0, output: 0 });
    expect(notices.map((n) => n.text)).toEqual([expect.stringContaining("over 80%")]);
    expect(usage.meter.refusal(tag("u"))).toBeUndefined();
    usage.meter.record(tag("u", { kind: "session", project: "demo" }), {
      model: "m",
      input: 200,
      cachedInput: 0,
      output: 0,
    });
    expect(notices.at(-1)?.text).toContain("this coding session keeps running");
    const refused = usage.meter.refusal(tag("u"));
    expect(refused).toContain("daily token limit on pc (1.1k of 1k)");
    expect(refused).toContain("until it resets at 2026-11-21 00:00 (UTC)");
    expect(usage.meter.refusal(tag("u", { kind: "worker", planId: "p1" }))).toBe(refused);
    expect(usage.meter.refusal(tag("u", { kind: "session" }))).toBeUndefined();
    expect(usage.meter.refusal(tag("someone-else"))).toBeUndefined();
    clock.advance(12 * 3600 * 1000);
    expect(usage.meter.refusal(tag("u"))).toBeUndefined();
  });

  it("a runaway loop of model calls is cut by the metered model once the limit is reached", async () => {
    const { usage } = world({
      USER_DAILY_COST_LIMIT: "0.01",
      MODEL_PRICES: '{"m": {"input": 10, "output": 10}}',
    });
    let calls = 0;
    const model: ModelClient = {
      complete: async () => {
        calls++;
        return { content: null, toolCalls: [], usage: { input: 200, output: 0, model: "m" } }; // $0.002 a call
      },
    };
    const metered = meteredModel(model, usage.meter, tag("u"));
    const call = () => metered.complete({ messages: [], tools: [], signal: ctx.signal });
    await expect(async () => {
      for (let i = 0; i < 100; i++) await call();
    }).rejects.toThrow(/daily cost limit on pc \(\$0\.01 of \$0\.01\)/);
    expect(calls).toBe(5);
    expect(metered.spent).toMatchObject({ calls: 5, input: 1000, priced: true });
  });

  it("PLAN_TOKEN_LIMIT refuses the plan's workers and report, not the user's other turns", () => {
    const { usage } = world({ PLAN_TOKEN_LIMIT: "100" });
    usage.meter.record(tag("u", { kind: "worker", planId: "p1" }), {
      model: "m",
      input: 90,
      cachedInput: 0,
      output: 10,
    });
    expect(usage.meter.refusal(tag("u", { kind: "worker", planId: "p1" }))).toContain(
      "Plan p1 reached its token limit on pc (100 of 100, PLAN_TOKEN_LIMIT)",
    );
    expect(usage.meter.refusal(tag("u", { kind: "report", planId: "p1" }))).toBeDefined();
    expect(usage.meter.refusal(tag("u", { kind: "worker", planId: "p2" }))).toBeUndefined();
    expect(usage.meter.refusal(tag("u"))).toBeUndefined();
  });
});

describe("/usage", () => {
  const owners = { isOwner: (id: string) => id === "admin" };

  it("shows the asker's own totals; another user's only to an owner; lift is an owner's", async () => {
    const { usage } = world({ USER_DAILY_TOKEN_LIMIT: "100" });
    usage.meter.record(tag("victim"), { model: "gpt-4o", input: 1234, cachedInput: 200, output: 56 });
    const command = usageCommand(usage, owners);
    const mine = await command.run("today", request("victim"), ctx);
    expect(mine).toContain("Total: 1,234 in (200 cached) · 56 out");
    expect(await command.run("@pc victim", request("mallory"), ctx)).toBe(
      "Only an owner of pc may see another user's usage.",
    );
    expect(await command.run("week victim", request("admin"), ctx)).toContain("for victim");
    expect(await command.run("lift victim", request("mallory"), ctx)).toBe(
      "Only an owner of pc may lift a limit.",
    );
    expect(usage.meter.refusal(tag("victim"))).toBeDefined();
    expect(await command.run("lift victim", request("admin"), ctx)).toContain("lifted until");
    expect(usage.meter.refusal(tag("victim"))).toBeUndefined();
    expect(await command.run("yesterday please", request("victim"), ctx)).toMatch(/^Usage: \/usage/);
  });
});

describe("the console's view", () => {
  it("14 days oldest first (empty days 0), the last 30 days per kind and project; it parses as the protocol's", () => {
    const { usage, clock } = world({ MODEL_PRICES: '{"m": {"input": 1, "output": 1}}' });
    usage.meter.record(tag("u"), { model: "m", input: 1000, cachedInput: 0, output: 0 });
    clock.advance(-3 * DAY);
    usage.meter.record(tag("u", { kind: "session", project: "demo" }), {
      model: "x",
      input: 5,
      cachedInput: 0,
      output: 5,
    });
    clock.advance(-40 * DAY);
    usage.meter.record(tag("u"), { model: "m", input: 7, cachedInput: 0, output: 0 }); // too old for both
    clock.advance(43 * DAY);
    const view = OverviewUsage.parse(usageOverview(usage, "u"));
    expect(view.days).toHaveLength(14);
    expect(view.days.at(-1)).toEqual({ day: "2026-11-20", tokens: 1000, cost_usd: 0.001 });
    expect(view.days.at(-4)).toEqual({ day: "2026-11-17", tokens: 10, cost_usd: 0 });
    expect(view.days[0]?.day).toBe("2026-11-07");
    expect(view.kinds).toEqual([
      { kind: "coding sessions · demo", calls: 1, input: 5, cached_input: 0, output: 5 },
      { kind: "assistant", calls: 1, input: 1000, cached_input: 0, output: 0, cost_usd: 0.001 },
    ]);
  });
});

describe("config", () => {
  it("names the bad key in a clear error", () => {
    const load = (env: Record<string, string>) => () =>
      loadConfig(HostConfigSchema, { env: { WORKING_DIR: dir.path, DATA_DIR: dir.path, ...env } });
    expect(load({ MODEL_PRICES: "not json" })).toThrow(/MODEL_PRICES: must map model names/);
    expect(load({ MODEL_PRICES: '{"m": {"input": -1, "output": 1}}' })).toThrow(/MODEL_PRICES\.m\.input/);
    expect(load({ USER_DAILY_TOKEN_LIMIT: "lots" })).toThrow(
      /USER_DAILY_TOKEN_LIMIT: must be a number of tokens/,
    );
    expect(load({ USAGE_RETENTION_DAYS: "0" })).toThrow(/USAGE_RETENTION_DAYS: must be at least 1/);
    expect(load({ USAGE_FOOTER: "yes" })).toThrow(ConfigError);
  });
});
