import type { PeerNode } from "@phonework/protocol";
import { z } from "zod";

// The plan the master hands to `delegate`, and the checks that turn it into a plan the runner
// can trust: a bounded number of subtasks, known skills, known nodes, dependencies without
// cycles. A refusal is a sentence the model reads and can act on.

/** The assistant tools a worker may be given. Others (background tasks, coding sessions,
 * reminders, delegate itself) outlive a worker or would nest plans, so no worker gets them. */
export const WORKER_SKILLS = ["run_shell", "file_ops", "web"] as const;

export const SubtaskSpec = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, "1-32 letters, digits, '_' or '-'")
    .describe("a short id, e.g. scan"),
  objective: z.string().min(1).max(4000).describe("what this worker must achieve"),
  context: z.string().max(16_000).default("").describe("what the worker needs to know"),
  skills: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(10)
    .describe(`tools it may use: ${WORKER_SKILLS.join(", ")}`),
  ttl_s: z.number().int().min(1).max(3600).optional().describe("time limit in seconds (default 300)"),
  node: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("another of the user's nodes to run it on (default: here)"),
  depends_on: z.array(z.string()).max(20).default([]).describe("ids of subtasks whose results it needs"),
});
export type SubtaskSpec = z.output<typeof SubtaskSpec>;

export const DelegateArgs = z.object({
  goal: z.string().min(1).max(2000).describe("the user's request in one sentence"),
  subtasks: z.array(SubtaskSpec).min(1).max(100),
});
export type DelegateArgs = z.output<typeof DelegateArgs>;

/** A subtask after validation: its node resolved to a node id (undefined: this host). */
export interface PlannedSubtask {
  id: string;
  objective: string;
  context: string;
  skills: string[];
  ttlS: number;
  node: string | undefined;
  dependsOn: string[];
}

export interface PlanLimits {
  maxSubtasks: number;
  defaultTtlS: number;
  /** This node, so a subtask pinned to it by name runs here. */
  self: { nodeId: string; displayName: string };
  /** Skills this host's workers can use (web only where it is configured). */
  localSkills: readonly string[];
  /** The user's other nodes, as the router listed them with the request. */
  peers: readonly PeerNode[];
}

export type PlanCheck = { ok: true; subtasks: PlannedSubtask[] } | { ok: false; reason: string };

export function checkPlan(args: DelegateArgs, limits: PlanLimits): PlanCheck {
  const refuse = (reason: string): PlanCheck => ({ ok: false, reason: `plan refused: ${reason}` });
  if (args.subtasks.length > limits.maxSubtasks)
    return refuse(`${args.subtasks.length} subtasks; at most ${limits.maxSubtasks} — merge some`);
  const ids = new Set<string>();
  const subtasks: PlannedSubtask[] = [];
  for (const spec of args.subtasks) {
    if (ids.has(spec.id)) return refuse(`two subtasks have the id "${spec.id}"`);
    ids.add(spec.id);
    const node = resolveNode(spec.node, limits);
    if (!node.ok) return refuse(`subtask "${spec.id}": ${node.reason}`);
    const known = node.nodeId === undefined ? limits.localSkills : WORKER_SKILLS;
    const unknown = spec.skills.filter((skill) => !known.includes(skill));
    if (unknown.length > 0)
      return refuse(
        `subtask "${spec.id}": unknown skill${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; workers can use ${known.join(", ")}`,
      );
    subtasks.push({
      id: spec.id,
      objective: spec.objective,
      context: spec.context,
      skills: [...new Set(spec.skills)],
      ttlS: spec.ttl_s ?? limits.defaultTtlS,
      node: node.nodeId,
      dependsOn: [...new Set(spec.depends_on)],
    });
  }
  for (const subtask of subtasks) {
    const missing = subtask.dependsOn.find((id) => !ids.has(id));
    if (missing) return refuse(`subtask "${subtask.id}" depends on "${missing}", which is not in the plan`);
  }
  const cycle = findCycle(subtasks);
  if (cycle) return refuse(`the dependencies form a cycle: ${cycle.join(" → ")}`);
  return { ok: true, subtasks };
}

type NodeChoice = { ok: true; nodeId: string | undefined } | { ok: false; reason: string };

function resolveNode(name: string | undefined, limits: PlanLimits): NodeChoice {
  if (name === undefined) return { ok: true, nodeId: undefined };
  const wanted = name.trim().toLowerCase();
  const is = (id: string, display: string) => id.toLowerCase() === wanted || display.toLowerCase() === wanted;
  if (is(limits.self.nodeId, limits.self.displayName)) return { ok: true, nodeId: undefined };
  const peer = limits.peers.find((p) => is(p.node_id, p.display_name));
  const names = [limits.self.nodeId, ...limits.peers.map((p) => p.node_id)].join(", ");
  if (!peer) return { ok: false, reason: `there is no node "${name}" among the user's nodes (${names})` };
  if (!peer.workers)
    return { ok: false, reason: `node "${peer.node_id}" cannot run workers (it needs upgrading)` };
  return { ok: true, nodeId: peer.node_id };
}

/** A dependency cycle as a path (first id repeated at the end), or undefined. */
export function findCycle(
  subtasks: readonly Pick<PlannedSubtask, "id" | "dependsOn">[],
): string[] | undefined {
  const deps = new Map(subtasks.map((s) => [s.id, s.dependsOn]));
  const state = new Map<string, "visiting" | "done">();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "visiting") return [...path.slice(path.indexOf(id)), id];
    state.set(id, "visiting");
    path.push(id);
    for (const dep of deps.get(id) ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const { id } of subtasks) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Minutes the plan should take: its longest dependency chain, a minute per step at most. */
export function estimateMinutes(subtasks: readonly PlannedSubtask[]): number {
  const byId = new Map(subtasks.map((s) => [s.id, s]));
  const memo = new Map<string, number>();
  const chain = (id: string): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const subtask = byId.get(id);
    const own = Math.min(subtask?.ttlS ?? 60, 60);
    const total = own + Math.max(0, ...(subtask?.dependsOn ?? []).map(chain));
    memo.set(id, total);
    return total;
  };
  return Math.max(1, Math.ceil(Math.max(...subtasks.map((s) => chain(s.id))) / 60));
}
