import { createHash } from "node:crypto";
import type { Logger } from "@phonework/runtime";
import { type OutgoingButton, PlatformError } from "../platform-adapter.ts";

// The bodies of what the bot sends: text that never pings anyone, buttons as components, a reply
// that still goes out when the message it answers is gone, and a nonce that makes a retried send
// arrive once. Ids are Discord's snowflakes, as strings.

/** Discord takes at most 5 rows of at most 5 buttons; a label of at most 80 characters. */
const MAX_ROWS = 5;
const MAX_PER_ROW = 5;
const MAX_LABEL = 80;
/** A nonce is at most 25 characters. */
const NONCE_LENGTH = 25;

/** No @everyone, @here, role or user ping from anything the bot writes (the renderer escapes too). */
export const NO_MENTIONS = { parse: [] as string[] };

export function snowflake(id: string, what: string): string {
  if (!/^\d{1,20}$/.test(id)) throw new PlatformError("permanent", `not a Discord ${what} id: ${id}`);
  return id;
}

/** The same key on every retry gives the same nonce: with enforce_nonce Discord sends it once. */
export const nonceOf = (idempotencyKey: string) =>
  createHash("sha256").update(idempotencyKey).digest("base64url").slice(0, NONCE_LENGTH);

interface ButtonComponent {
  type: 2;
  style: 2;
  label: string;
  custom_id: string;
}
export interface ActionRow {
  type: 1;
  components: ButtonComponent[];
}

/** Buttons as action rows; what does not fit Discord's 5 × 5 is left out (and logged). */
export function actionRows(buttons: OutgoingButton[][], logger?: Logger): ActionRow[] {
  const rows = buttons.filter((row) => row.length > 0);
  const kept = rows.slice(0, MAX_ROWS).map((row) => row.slice(0, MAX_PER_ROW));
  const dropped = rows.flat().length - kept.flat().length;
  if (dropped > 0) logger?.warn({ dropped }, "Discord shows at most 5 rows of 5 buttons; the rest left out");
  return kept.map((row) => ({
    type: 1,
    components: row.map((button) => ({
      type: 2,
      style: 2,
      label: button.label.length > MAX_LABEL ? `${button.label.slice(0, MAX_LABEL - 1)}…` : button.label,
      custom_id: button.data,
    })),
  }));
}

/** A reply to `messageId`; sent as a plain message if that message is gone. */
export const replyReference = (messageId: string) => ({
  message_id: snowflake(messageId, "message"),
  fail_if_not_exists: false,
});
