import { BoundedMap } from "../../storage/bounded-map.ts";
import type { OutgoingButton } from "../platform-adapter.ts";
import { markdownCard } from "./card.ts";

// The cards with buttons this adapter sent, so that a press can update its card in place: a
// callback names only the card's message and the pressed button's data, and Feishu wants the whole
// new card back. Kept in memory (the newest few hundred): after a restart a press on an older card
// still works (the shared layer keeps its buttons in router.db) and is answered with a toast, but
// its card keeps its buttons. Who pressed is checked by the shared layer; here a stranger's press
// (in a group anyone can press) leaves the card as it is.

interface ButtonCard {
  text: string;
  rows: OutgoingButton[][];
  /** The user the buttons were sent to (Feishu open_id). */
  owner: string;
  /** Sent to the user's open_id: the card is in their private chat with the bot. */
  privateChat: boolean;
  outcomes: string[];
}

const REMEMBERED = 500;

export class ButtonCards {
  private readonly cards = new BoundedMap<string, ButtonCard>(REMEMBERED);

  /** After a send or an edit of `messageId`: remembered with its buttons, or forgotten without. */
  sent(
    messageId: string,
    card: { text: string; rows: OutgoingButton[][] | undefined; owner: string; privateChat: boolean },
  ): void {
    if (!card.rows?.length) {
      this.cards.take(messageId);
      return;
    }
    this.cards.set(messageId, { ...card, rows: card.rows, outcomes: [] });
  }

  /** Whether the card went to its owner's private chat (undefined: not a card known here). */
  privateChat(messageId: string): boolean | undefined {
    return this.cards.get(messageId)?.privateChat;
  }

  /**
   * The card after its owner pressed `data`: that button's row gone (a row answers once), the
   * outcome written under the rest. Undefined when the card is not known, or the presser is not
   * its owner (their press changed nothing).
   */
  pressed(messageId: string, data: string, presser: string, outcome: string) {
    const card = this.cards.get(messageId);
    if (!card || card.owner !== presser) return undefined;
    card.rows = card.rows.filter((row) => !row.some((b) => b.data === data));
    // An open_id is letters, digits and "_": anything else is not put into the card's markdown.
    card.outcomes.push(/^[\w-]{1,64}$/.test(presser) ? `${outcome} · <at id=${presser}></at>` : outcome);
    return markdownCard(card.text, card.rows, card.outcomes);
  }
}
