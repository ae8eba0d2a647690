import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ChatRequest, createManualClock, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { chatAs, startHostWithModel } from "./support.ts";

// Issue 17's promise, end to end on a running host: the owner adds a memory, a skill, a custom
// tool and a nightly event by writing files in the workspace — no code change, no restart — and
// the assistant uses each of them.

/** Monday 2026-01-05, 02:00 UTC. */
const at = (hour: number, minute: number, second = 0) => Date.UTC(2026, 0, 5, hour, minute, second);
const USER = "telegram:42";

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const systemPrompt = (request: ChatRequest | undefined) => String(request?.messages[0]?.content);

describe("extending the assistant by writing files in the workspace", () => {
  it("a memory, a skill, a custom tool and a nightly event, all picked up while the host runs", async () => {
    const clock = createManualClock(at(2, 0));
    const s = await startHostWithModel({ SCHEDULER_TICK_S: 0.05, TIME_ZONE: "UTC" }, undefined, { clock });
    const workspace = join(s.dir, "host", "laptop", "workspace");
    const ask = chatAs(s.router, { user: USER, chat: USER, platform: "telegram" });

    write(join(workspace, "MEMORY.md"), "The NAS is nas.local; backups land in /srv/backup.\n");
    write(
      join(workspace, "skills", "backup-check", "SKILL.md"),
      "---\nname: backup-check\ndescription: How to tell whether last night's backup worked\n---\n" +
        "1. Call backup_age.\n2. Older than 26 hours means it failed: say so first.\n",
    );
    write(
      join(workspace, "tools", "backup_age", "index.ts"),
      `import { z } from "zod";
export default {
  name: "backup_age",
  description: "Hours since the newest backup on the NAS",
  parameters: z.object({}),
  async execute() {
    return "newest backup: 5 hours old";
  },
};
`,
    );
    write(
      join(workspace, "events", "nightly.json"),
      JSON.stringify({
        type: "periodic",
        channel: USER,
        text: "check last night's backup",
        schedule: "0 3 * * *",
      }),
    );
    await waitFor(
      async () => (await ask("/tools")).includes("• backup_age — Hours since the newest backup"),
      {
        timeoutMs: 15_000,
        intervalMs: 50,
        message: "the custom tool to load",
      },
    );

    s.model.script(
      { toolCalls: [{ name: "skill", arguments: { name: "backup-check" } }] },
      { toolCalls: [{ name: "backup_age", arguments: {} }] },
      { text: "Last night's backup worked (5 hours old), on nas.local." },
    );
    expect(await ask("did the backup work?")).toBe("Last night's backup worked (5 hours old), on nas.local.");
    const first = s.model.requests.at(-3);
    expect(systemPrompt(first)).toContain("The NAS is nas.local");
    expect(systemPrompt(first)).toMatch(/backup-check: How to tell whether last night's backup worked/);
    expect(first?.tools?.map((t) => t.function.name)).toContain("backup_age");
    const [skillBody, toolResult] = s.model.toolResults(s.model.requests.at(-1));
    expect(skillBody).toContain("Older than 26 hours means it failed");
    expect(toolResult).toBe("newest backup: 5 hours old");

    // The nightly event: stored as a job, then a turn of the assistant at 03:00 that sees the memory.
    const job = await waitFor(() => s.host.jobs.list(USER)[0]);
    expect(job.due_at).toBe(at(3, 0));
    s.model.script({ text: "Nightly check: the backup is 1 hour old, all good." });
    clock.set(at(3, 0, 1));
    const notify = await waitFor(() =>
      s.router
        .latest()
        .inbox.frames.find((f) => f.type === "notify" && String(f.text).includes("Nightly check")),
    );
    expect(notify).toMatchObject({ user_id: USER, platform: "telegram", chat_id: USER });
    const eventTurn = s.model.requests.at(-1);
    expect(eventTurn?.messages.at(-1)?.content).toBe("[event] check last night's backup");
    expect(systemPrompt(eventTurn)).toContain("The NAS is nas.local");
    await waitFor(() => s.host.jobs.list(USER)[0]?.due_at === Date.UTC(2026, 0, 6, 3, 0));
  });
});
