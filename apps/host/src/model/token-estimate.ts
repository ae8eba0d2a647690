import type { ChatMessage } from "./chat-message.ts";

// A cheap token estimate for trimming history: ~4 characters per token for Latin text,
// ~1 token per CJK character. Deliberately conservative; exact counts depend on the model.

const CJK = /[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

export function estimateTokens(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

export function messageTokens(message: ChatMessage): number {
  const calls = message.role === "assistant" ? JSON.stringify(message.tool_calls ?? []) : "";
  return 4 + estimateTokens(message.content ?? "") + estimateTokens(calls);
}
