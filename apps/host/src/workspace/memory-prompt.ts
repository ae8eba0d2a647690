import type { ForwardFrame } from "@phonework/protocol";
import { estimateTokens } from "../agent/token-estimate.ts";
import type { MemoryFiles, MemoryScope } from "./memory-files.ts";
import { channelOf } from "./workspace-layout.ts";

// The memory part of the system prompt: the workspace's MEMORY.md and the chat's, read fresh at
// every turn, together within a token budget. A file over its share keeps its beginning and the
// prompt says it was cut, so the model neither acts on a half-read list unknowingly nor guesses.

const HEADINGS: Record<MemoryScope, { title: string; name: string }> = {
  global: { title: "This host's memory (workspace MEMORY.md)", name: "the workspace MEMORY.md" },
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
 * Each file's share of `budget`: whole when both fit; else a file under half keeps all of its
 * own and the other gets the rest, and two big files get half each.
 */
export function shareBudget(tokens: [number, number], budget: number): [number, number] {
  const [a, b] = tokens;
  if (a + b <= budget) return [a, b];
  const half = Math.floor(budget / 2);
  if (a <= half) return [a, budget - a];
  if (b <= half) return [budget - b, b];
  return [half, budget - half];
}

interface Part {
  scope: MemoryScope;
  text: string;
}

export function memoryPromptSection(memory: MemoryFiles, maxTokens: number) {
  return (request: ForwardFrame): string | undefined => {
    const channel = channelOf(request.platform, request.chat_id);
    const problems: string[] = [];
    const parts: Part[] = [];
    for (const scope of ["global", "channel"] as const) {
      try {
        const text = memory.read(scope, channel).trim();
        if (text) parts.push({ scope, text });
      } catch (error) {
        problems.push(`${HEADINGS[scope].name} could not be read: ${(error as Error).message}`);
      }
    }
    if (parts.length === 0 && problems.length === 0) return undefined;

    const tokens = parts.map((part) => estimateTokens(part.text));
    const shares =
      parts.length === 2 ? shareBudget([tokens[0] ?? 0, tokens[1] ?? 0], maxTokens) : [maxTokens];
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
