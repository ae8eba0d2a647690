import type { ChatRequest, FakeOpenAI, Reply } from "./fake-openai.ts";

// Scripts the fake OpenAI server for Master/Worker tests: one model serves the master's turns,
// each worker (told apart by the objective in its system prompt) and the final report, all at
// once and in any order, as they arrive from parallel workers.

export type RequestKind = "master" | "worker" | "report";

export function kindOf(request: ChatRequest): RequestKind {
  const system = String(request.messages[0]?.content ?? "");
  if (system.startsWith("You are a PhoneWork Worker")) return "worker";
  if (system.includes("acting as the master of a plan")) return "report";
  return "master";
}

/** The worker's objective and task id, read from its system prompt. */
export function workerTask(request: ChatRequest): { objective: string; taskId: string; context: string } {
  const system = String(request.messages[0]?.content ?? "");
  return {
    objective: /^Objective: (.*)$/m.exec(system)?.[1] ?? "",
    taskId: /^Task ID: (.*)$/m.exec(system)?.[1] ?? "",
    context: /^Context: ([\s\S]*?)\n\n## Available skills/m.exec(system)?.[1] ?? "",
  };
}

/** Tool results this worker conversation has seen so far (0 on its first request). */
export const stepOf = (request: ChatRequest) => request.messages.filter((m) => m.role === "tool").length;

export const workerJson = (result: string, status = "success", extra: Record<string, unknown> = {}) => ({
  text: `\`\`\`json\n${JSON.stringify({ task_id: "x", status, result, artifacts: [], duration: 0, errors: [], ...extra })}\n\`\`\``,
});

export const delegateCall = (goal: string, subtasks: object[]): Reply => ({
  toolCalls: [{ name: "delegate", arguments: { goal, subtasks } }],
});

export interface PlanScript {
  /** The master's replies, in order (a delegate call, then its words to the user, …). */
  master: Reply[];
  /** A worker's reply to one request, by its objective. */
  worker: (task: ReturnType<typeof workerTask>, request: ChatRequest) => Reply;
  report?: (request: ChatRequest) => Reply;
}

/** Installs the script as the server's fallback; returns the requests seen, by kind. */
export function scriptPlan(model: FakeOpenAI, script: PlanScript) {
  const master = [...script.master];
  model.fallback = (request) => {
    const kind = kindOf(request);
    if (kind === "worker") return script.worker(workerTask(request), request);
    if (kind === "report")
      return script.report?.(request) ?? { text: `Task complete. Summary: ${reportInput(request)}` };
    return master.shift() ?? { text: `master: ${model.lastUserText(request)}` };
  };
  return {
    of: (kind: RequestKind) => model.requests.filter((r) => kindOf(r) === kind),
  };
}

/** The results the report request was given (its user message). */
export const reportInput = (request: ChatRequest) => String(request.messages.at(-1)?.content ?? "");
