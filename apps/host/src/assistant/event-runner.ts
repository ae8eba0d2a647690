import type { EventRunner } from "../schedule/scheduler.ts";
import type { Assistant } from "./assistant.ts";

// How an event job runs: its text goes to the assistant as a turn in the event's chat, marked as
// coming from the system, and the assistant's answer is what the user gets. When the model
// cannot be reached (or none is configured), the event is passed on as written: it is not lost.

export const eventInput = (text: string) => `[event] ${text}`;

export function createEventRunner(assistant: Pick<Assistant, "wake">): EventRunner {
  return async (job, signal) => {
    const outcome = await assistant.wake(
      {
        type: "forward",
        id: `event-${job.id}-${job.run_count + 1}`,
        user_id: job.user_id,
        chat_id: job.chat_id,
        platform: job.platform,
        text: eventInput(job.text),
      },
      signal,
    );
    if (outcome.stopReason === "provider_error")
      return `📣 ${job.text}\n\n(an event; the assistant could not be reached, so it is passed on as written)`;
    return outcome.reply;
  };
}
