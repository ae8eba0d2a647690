import { z } from "zod";
import { defineTool, type Tool, ToolError } from "../contracts/tool.ts";
import { formatJob, formatJobList } from "./format-jobs.ts";
import type { ScheduleService } from "./schedule-service.ts";
import { formatTime } from "./when.ts";

// schedule, list_scheduled, cancel_scheduled: the model writes a reminder's text now; at the
// time it is sent as is, with no model call.

const ScheduleArgs = z.object({
  at: z
    .string()
    .optional()
    .describe("absolute time: ISO 8601 with offset (2026-12-01T09:00+08:00), or local time"),
  delay: z.string().optional().describe('relative delay instead of at: "10m", "2h30m", "1d"'),
  message: z.string().optional().describe("the exact text to send at the time (write it now, final wording)"),
  check_command: z
    .string()
    .optional()
    .describe("instead of message: a shell command to run at the time; its result is reported"),
  check_prompt: z.string().optional().describe("instead of message: a prompt for the user's coding session"),
  description: z.string().optional().describe("for checks: what is checked, e.g. 'the tests'"),
  notify: z
    .enum(["always", "on_change", "on_failure"])
    .optional()
    .describe("for checks: report every run (default), only when the result changed, or only on failure"),
  every: z.string().optional().describe('repeat every interval: "5m", "1h"'),
  cron: z.string().optional().describe('or repeat on a cron schedule in time_zone: "0 9 * * 1-5"'),
  max_runs: z.number().int().optional().describe("stop repeating after this many runs"),
  time_zone: z.string().optional().describe("IANA zone for local times and cron (default: this host's)"),
  if_missed: z
    .enum(["catch_up", "skip"])
    .optional()
    .describe(
      "if the host is down at the time: send once late (catch_up, default) or report it missed (skip)",
    ),
  replace_existing: z.boolean().optional().describe("cancel every pending job in this chat first"),
});

export function createScheduleTools(service: ScheduleService): Tool[] {
  return [
    defineTool({
      name: "schedule",
      description:
        "Schedule a message (a reminder) or a check (command/prompt whose result is reported) for later, " +
        "once or repeating. Give at or delay (or only every/cron for a repeating job).",
      schema: ScheduleArgs,
      describe: (args) =>
        `scheduling: ${(args.message ?? args.check_command ?? args.check_prompt ?? "").slice(0, 60)}`,
      async execute(args, ctx) {
        const owner = { userId: ctx.userId, platform: ctx.platform, chatId: ctx.chatId };
        const created = service.create(args, owner, ctx.toolCallId ?? null);
        if (!created.ok) throw new ToolError(`nothing was scheduled: ${created.error}`);
        const { job, replaced } = created.value;
        return JSON.stringify({
          task_id: job.id,
          send_at: new Date(job.due_at).toISOString(),
          send_at_local: formatTime(job.due_at, job.time_zone),
          kind: job.kind,
          message_text: job.kind === "message" ? job.text : undefined,
          replace_existing: args.replace_existing ?? false,
          cancelled_task_ids: replaced,
          summary: formatJob(job),
        });
      },
    }),
    defineTool({
      name: "list_scheduled",
      description: "List the user's pending reminders and scheduled checks (or recent finished ones too).",
      schema: z.object({ include_finished: z.boolean().optional() }),
      execute: async (args, ctx) => formatJobList(service.list(ctx.userId, args.include_finished ?? false)),
    }),
    defineTool({
      name: "cancel_scheduled",
      description: "Cancel one of the user's pending reminders or scheduled checks by id.",
      schema: z.object({ id: z.number().int() }),
      async execute(args, ctx) {
        const cancelled = service.cancel(ctx.userId, args.id, ctx.toolCallId ?? null);
        if (!cancelled.ok) throw new ToolError(cancelled.error);
        return `cancelled ${formatJob(cancelled.value)}`;
      },
    }),
  ];
}
