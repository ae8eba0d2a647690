import type { WorkerResult } from "@phonework/protocol";
import { z } from "zod";
import { describeZodError } from "../contracts/tool.ts";
import type { ChatMessage } from "../model/chat-message.ts";
import type { ModelClient } from "../model/model-client.ts";
import { WORKER_REPAIR_REQUEST } from "./worker-prompt.ts";

// Reads a worker's final message as its structured result. Models wrap JSON in fences or
// prose and stray from the format in harmless ways (details as an object, errors missing), so
// the schema is lenient there; everything is capped to the wire limits rather than refused.

/** A result before the host adds the duration it measured. */
export type WorkerAnswer = Omit<WorkerResult, "duration">;

export type ParsedWorkerAnswer = { ok: true; result: WorkerAnswer } | { ok: false; reason: string };

/** A result the host writes itself: the worker was stopped, failed, or answered in prose. */
export const hostAnswer = (
  taskId: string,
  status: WorkerAnswer["status"],
  result: string,
  errors: string[],
): WorkerAnswer => ({ task_id: taskId, status, result, artifacts: [], errors });

/** The ledger's view of a result the worker wrote: only "failed" is a failure. */
export const outcomeOf = (status: WorkerAnswer["status"]) => (status === "failed" ? "failed" : "completed");

const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
const present = (value: unknown) => value !== undefined && value !== null;
const texts = (maxItems: number, maxChars: number) =>
  z
    .array(z.string())
    .nullish()
    .transform((items) => (items ?? []).slice(0, maxItems).map((item) => item.slice(0, maxChars)));

// Limits mirror WorkerResult in @phonework/protocol. `task_id` and `duration` are not read:
// the host knows the real id and measures the time itself.
const ModelAnswer = z.object({
  status: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(["success", "failed", "partial"])),
  result: z
    .unknown()
    .refine(present, "required")
    .transform((value) => asText(value).slice(0, 64_000)),
  details: z
    .unknown()
    .transform((value) => (present(value) ? asText(value).slice(0, 64_000) : undefined))
    .optional(),
  artifacts: texts(100, 4096),
  errors: texts(50, 4000),
});

/** Places a JSON object may be: the whole text, a fenced block, or from the first `{` to the last `}`. */
function candidates(text: string): string[] {
  const found = [text.trim()];
  for (const match of text.matchAll(/```[a-zA-Z]*[ \t]*\n?([\s\S]*?)```/g))
    found.push((match[1] ?? "").trim());
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start >= 0 && end > start) found.push(text.slice(start, end + 1));
  return found;
}

export function parseWorkerAnswer(text: string, taskId: string): ParsedWorkerAnswer {
  let reason = "no JSON object found in the answer";
  for (const candidate of candidates(text)) {
    let raw: unknown;
    try {
      raw = JSON.parse(candidate);
    } catch {
      continue;
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) continue;
    const parsed = ModelAnswer.safeParse(raw);
    if (!parsed.success) {
      reason = `the JSON does not match the result format: ${describeZodError(parsed.error)}`;
      continue;
    }
    const { details, ...rest } = parsed.data;
    return { ok: true, result: { task_id: taskId, ...rest, ...(details === undefined ? {} : { details }) } };
  }
  return { ok: false, reason };
}

/**
 * One more turn, without tools so the model can only restate what it found, asking for just the
 * JSON result. Undefined if that is unreadable too or the request fails (the caller keeps the prose).
 */
export async function repairAnswer(
  model: ModelClient,
  conversation: ChatMessage[],
  taskId: string,
  signal: AbortSignal,
): Promise<WorkerAnswer | undefined> {
  try {
    const messages: ChatMessage[] = [...conversation, { role: "user", content: WORKER_REPAIR_REQUEST }];
    const parsed = parseWorkerAnswer(
      (await model.complete({ messages, tools: [], signal })).content ?? "",
      taskId,
    );
    return parsed.ok ? parsed.result : undefined;
  } catch {
    return undefined;
  }
}
