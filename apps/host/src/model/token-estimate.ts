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
  const { content } = message;
  // An image part counts as what a 1,568 px image costs OpenAI's and Anthropic's models (~1,600).
  const text = Array.isArray(content)
    ? content.reduce((sum, part) => sum + (part.type === "text" ? estimateTokens(part.text) : 1600), 0)
    : estimateTokens(content ?? "");
  return 4 + text + estimateTokens(calls);
}
