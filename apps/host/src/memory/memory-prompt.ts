import type { ForwardFrame } from "@phonework/protocol";
import { estimateTokens } from "../model/token-estimate.ts";
import { channelOf } from "../workspace/workspace-layout.ts";
import type { MemoryFiles, MemoryScope } from "./memory-files.ts";
import { type Owners, shownScopes } from "./memory-scopes.ts";

// The memory part of the system prompt: the workspace's MEMORY.md, the user's own (for a user who
// is not the node's owner) and the chat's, read fresh at every turn, together within a token
// budget. A file over its share keeps its beginning and the prompt says it was cut, so the model
// neither acts on a half-read list unknowingly nor guesses.

const HEADINGS: Record<MemoryScope, { title: string; name: string }> = {
  global: { title: "This host's memory (workspace MEMORY.md)", name: "the workspace MEMORY.md" },
  user: { title: "This user's own memory (in every chat of theirs here)", name: "this user's own memory" },
  channel: { title: "This chat's memory (its MEMORY.md)", name: "this chat's MEMORY.md" },
};

/** The longest beginning of `text` within `budget` estimated tokens, ending at a line when one is near. */
export function headWithin(text: string, budget: number): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTokens(text.slice(0, mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  let head = text.slice(0, low);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  const lineEnd = head.lastIndexOf("\n");
  return lineEnd >= head.length / 2 ? head.slice(0, lineEnd) : head;
}

/**
 * Each file's share of `budget`, fairly: every file under an equal share keeps all of its own, and
 * what they leave is shared equally by the bigger ones (the last of those gets any odd token).
 */
export function shareBudget(tokens: readonly number[], budget: number): number[] {
  if (tokens.reduce((sum, n) => sum + n, 0) <= budget) return [...tokens];
  const shares = tokens.map(() => 0);
  let left = budget;
  let open = tokens.map((_, i) => i);
  // Files that fit their equal share of what is left take it all; repeat until none does.
  for (;;) {
    const level = Math.floor(left / open.length);
    const fitting = open.filter((i) => (tokens[i] ?? 0) <= level);
    if (fitting.length === 0) {
      open.forEach((i, k) => {
        shares[i] = k === open.length - 1 ? left - level * (open.length - 1) : level;
      });
      return shares;
    }
    for (const i of fitting) {
      shares[i] = tokens[i] ?? 0;
      left -= shares[i] ?? 0;
    }
    open = open.filter((i) => !fitting.includes(i));
  }
}

interface Part {
  scope: MemoryScope;
  text: string;
}

export function memoryPromptSection(memory: MemoryFiles, owners: Owners, maxTokens: number) {
  return (request: ForwardFrame): string | undefined => {
    const at = { userId: request.user_id, channel: channelOf(request.platform, request.chat_id) };
    const problems: string[] = [];
    const parts: Part[] = [];
    for (const scope of shownScopes(owners, request.user_id)) {
      try {
        const text = memory.read(scope, at).trim();
        if (text) parts.push({ scope, text });
      } catch (error) {
        problems.push(`${HEADINGS[scope].name} could not be read: ${(error as Error).message}`);
      }
    }
    if (parts.length === 0 && problems.length === 0) return undefined;

    const tokens = parts.map((part) => estimateTokens(part.text));
    const shares = shareBudget(tokens, maxTokens);
    const sections = parts.map((part, i) => {
      const share = shares[i] ?? 0;
      const { title, name } = HEADINGS[part.scope];
      if ((tokens[i] ?? 0) <= share) return `## ${title}\n${part.text}`;
      return [
        `## ${title}`,
        headWithin(part.text, share),
        `[${name} was cut here: it is longer than the memory budget (MEMORY_MAX_TOKENS). The user sees all of it with /memory; you can read all of it with the memory tool (action read).]`,
      ].join("\n");
    });
    return [
      "Memory — what you were asked to remember (use it; change it only with the memory tool):",
      ...sections,
      ...problems,
    ].join("\n\n");
  };
}
