import { badRequest } from "../api/errors.ts";

// Callback queries the fake delivered (button presses) and the bot's answers. Each may be answered
// once; an unknown or already answered id gets the real "query is too old" error.

export interface CallbackAnswer {
  callback_query_id: string;
  text?: string;
  show_alert?: boolean;
  url?: string;
  cache_time?: number;
  at: number;
}

export class CallbackQueries {
  private readonly open = new Set<string>();
  private count = 0;
  readonly answers: CallbackAnswer[] = [];

  /** A new query id, numeric like the real ones. */
  add(): string {
    this.count += 1;
    const id = `${4_382_000_000_000_000_000n + BigInt(this.count)}`;
    this.open.add(id);
    return id;
  }

  answer(answer: CallbackAnswer): void {
    if (!this.open.delete(answer.callback_query_id)) {
      throw badRequest("query is too old and response timeout expired or query ID is invalid");
    }
    this.answers.push(answer);
  }
}
