import { cardProblem, cardProblemMessage } from "./card-schema.ts";
import type { MessageStore } from "./messages.ts";
import type { CardAnswer, CardButton } from "./types.ts";

// What Feishu does with a card callback's answer: `{ toast?, card? }` — the toast shown to the
// presser, the card (`{ type: "raw", data }`, checked like any card) put in place of the pressed
// one for everyone. An answer Feishu cannot read changes nothing and is kept as refused. Every
// answer is kept in order, as the transcript of presses.

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The callback buttons of a card, in order (inside column_sets too). */
export function buttonsOf(card: unknown): CardButton[] {
  const found: CardButton[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (!isObject(node)) return;
    if (node.tag === "button" && isObject(node.text)) {
      const callback = Array.isArray(node.behaviors)
        ? (node.behaviors as Json[]).find((b) => isObject(b) && b.type === "callback")
        : undefined;
      if (callback) found.push({ label: String(node.text.content), value: callback.value });
    }
    for (const value of Object.values(node)) walk(value);
  };
  walk(card);
  return found;
}

export class CardCallbacks {
  readonly answers: CardAnswer[] = [];

  constructor(private readonly messages: MessageStore) {}

  /** Applies a callback's answer (already parsed JSON, or undefined for an empty one). */
  apply(messageId: string, answer: unknown): CardAnswer {
    const result: CardAnswer = { messageId };
    if (isObject(answer) && isObject(answer.toast)) result.toast = answer.toast as CardAnswer["toast"];
    const card = isObject(answer) ? answer.card : undefined;
    if (card !== undefined) {
      const raw = isObject(card) && card.type === "raw" ? card.data : undefined;
      const problem = isObject(raw) ? cardProblem(raw) : undefined;
      if (!isObject(raw)) result.refused = 'card must be { type: "raw", data: {…} }';
      else if (problem) result.refused = cardProblemMessage(problem);
      else {
        result.card = raw;
        this.messages.replaceCard(messageId, raw);
      }
    }
    this.answers.push(result);
    return result;
  }
}

/** The handler's answer in a long-connection ack: base64 of its JSON, or nothing. */
export function decodeAckData(data: string | undefined): unknown {
  if (!data) return undefined;
  try {
    return JSON.parse(Buffer.from(data, "base64").toString("utf8"));
  } catch {
    return undefined;
  }
}
