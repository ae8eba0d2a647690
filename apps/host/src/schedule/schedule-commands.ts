import { ownerOf } from "../contracts/chat-owner.ts";
import type { HostCommand } from "../contracts/host-command.ts";
import { MAX_BUTTON_ROWS } from "../contracts/reply.ts";
import { formatJob, formatJobList } from "./format-jobs.ts";
import type { ScheduleService } from "./schedule-service.ts";

// /remind, /reminders, /cancel: reminders without the model.

const REMIND_USAGE =
  "Usage: /remind <when> <text> — e.g. /remind 10m deploy check, /remind 2026-12-01T09:00 standup";

/**
 * "10m deploy check" → delay "10m"; "1h 30m tea" → delay "1h 30m"; "2026-12-01 09:00 standup" and
 * "2026-12-01T09:00 standup" → at. Returns the when-part, whether it is a delay, and the text.
 */
export function splitWhen(args: string): { when: string; isDelay: boolean; text: string } {
  const words = args.trim().split(/\s+/);
  let count = 0;
  while (count < words.length && /^\d+(?:\.\d+)?[a-z]+$/i.test(words[count] ?? "")) count++;
  if (count > 0)
    return { when: words.slice(0, count).join(" "), isDelay: true, text: words.slice(count).join(" ") };
  const dateAndTime = /^\d{4}-\d{2}-\d{2}$/.test(words[0] ?? "") && /^\d{1,2}:\d{2}/.test(words[1] ?? "");
  const take = dateAndTime ? 2 : 1;
  return { when: words.slice(0, take).join(" "), isDelay: false, text: words.slice(take).join(" ") };
}

export function scheduleCommands(service: ScheduleService): HostCommand[] {
  return [
    {
      name: "remind",
      usage: "/remind <when> <text>",
      description: "a reminder at a time (10m, 2h30m, 2026-12-01T09:00)",
      async run(args, request) {
        if (!args.trim()) return REMIND_USAGE;
        const { when, isDelay, text } = splitWhen(args);
        const owner = ownerOf(request);
        const created = service.create(
          { ...(isDelay ? { delay: when } : { at: when }), message: text },
          owner,
          "command:/remind",
        );
        if (!created.ok) return `❌ Not scheduled: ${created.error}.\n${REMIND_USAGE}`;
        return `⏰ Scheduled ${formatJob(created.value.job)}`;
      },
    },
    {
      name: "reminders",
      usage: "/reminders",
      description: "your pending reminders and scheduled checks",
      async run(_args, request) {
        const jobs = service.list(request.user_id);
        // One row per job; past the rows the wire allows, the text's "/cancel <id>" still works.
        const buttons = jobs
          .slice(0, MAX_BUTTON_ROWS)
          .map((job) => [{ label: `Cancel #${job.id}`, command: `/cancel ${job.id}` }]);
        return { text: formatJobList(jobs), ...(buttons.length ? { buttons } : {}) };
      },
    },
    {
      name: "cancel",
      usage: "/cancel <id>",
      description: "cancel a reminder or scheduled check",
      async run(args, request) {
        const id = Number(args.replace(/^#/, ""));
        if (!args.trim() || !Number.isInteger(id)) return "Usage: /cancel <id> (/reminders lists the ids)";
        const cancelled = service.cancel(request.user_id, id, "command:/cancel");
        return cancelled.ok ? `🗑️ Cancelled ${formatJob(cancelled.value)}` : `❌ ${cancelled.error}.`;
      },
    },
  ];
}
