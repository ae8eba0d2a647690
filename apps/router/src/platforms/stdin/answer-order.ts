// Which answers need to say what they answer, on a chat without replies (the terminal). Answers
// that come in the order the messages were sent need nothing; one that overtakes an earlier
// message's answer is quoted, and so is that earlier answer when it comes.

/** How much of the message an answer quotes. */
const QUOTE_CHARS = 40;
/** Messages never answered (their handling failed) are forgotten past this many. */
const MAX_UNANSWERED = 100;

/** "» echo 3: " — the start of the message an answer is for, on one line. */
export function quote(message: string): string {
  const line = message.replace(/\s+/g, " ").trim();
  return `» ${line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS)}…` : line}: `;
}

export class AnswerOrder {
  /** Messages waiting for their answer, oldest first. */
  private readonly waiting: Array<{ id: string; text: string; overtaken: boolean }> = [];

  received(id: string, text: string): void {
    this.waiting.push({ id, text, overtaken: false });
    if (this.waiting.length > MAX_UNANSWERED) this.waiting.shift();
  }

  /** The answer to `id` is going out: the message's text if the answer should quote it. */
  answered(id: string): string | undefined {
    const index = this.waiting.findIndex((message) => message.id === id);
    const message = this.waiting[index];
    if (!message) return undefined; // not a message of this chat, or answered already
    this.waiting.splice(index, 1);
    for (const earlier of this.waiting.slice(0, index)) earlier.overtaken = true;
    return index > 0 || message.overtaken ? message.text : undefined;
  }
}
