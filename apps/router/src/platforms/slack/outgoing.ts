import type { OutgoingButton } from "../platform-adapter.ts";

// The parts of what the bot sends: Block Kit for text with buttons, and the options every message
// shares. With blocks, Slack shows the blocks and uses `text` only for notifications, so the text
// goes into a section block too.

/** Slack cuts a button's label at 75 characters. */
const MAX_LABEL = 75;
/** An actions block holds at most 25 elements. */
const MAX_ROW = 25;

type Block =
  | { type: "section"; text: { type: "mrkdwn"; text: string } }
  | {
      type: "actions";
      elements: Array<{
        type: "button";
        action_id: string;
        text: { type: "plain_text"; text: string; emoji: true };
        value: string;
      }>;
    };

const label = (text: string) => (text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text);

/** The text as a section, then one actions block per row; a button's value is the opaque data. */
export function buttonBlocks(text: string, buttons: OutgoingButton[][]): Block[] {
  const rows = buttons.filter((row) => row.length > 0);
  return [
    ...(text.trim() === "" ? [] : [{ type: "section" as const, text: { type: "mrkdwn" as const, text } }]),
    ...rows.map((row, r) => ({
      type: "actions" as const,
      elements: row.slice(0, MAX_ROW).map((button, b) => ({
        type: "button" as const,
        // Unique within the message, as Slack requires; the press is read from the value.
        action_id: `pw-${r}-${b}`,
        text: { type: "plain_text" as const, text: label(button.label), emoji: true as const },
        value: button.data,
      })),
    })),
  ];
}

/** Answers are rendered to mrkdwn by the shared layer; a link in them should not grow a preview. */
export const TEXT_OPTIONS = { mrkdwn: true, unfurl_links: false, unfurl_media: false } as const;
