import type { MessageEntity } from "grammy/types";
import { badRequest } from "../api/errors.ts";
import { parseHtml } from "./html.ts";
import { parseMarkdownV2 } from "./markdown-v2.ts";

// A text or caption as the chat shows it: markup parsed away into entities, or refused with the
// real "can't parse entities" error. Legacy Markdown is passed through unparsed (simplified).

export interface Formatted {
  text: string;
  entities?: MessageEntity[];
}

/** An entity as given in `entities` / `caption_entities` (loosely checked). */
export type GivenEntity = { type: string; offset: number; length: number };

export function formatText(
  source: string,
  parseMode: string | undefined,
  explicit?: GivenEntity[],
): Formatted {
  if (parseMode === undefined || parseMode === "Markdown") {
    return explicit?.length ? { text: source, entities: explicit as MessageEntity[] } : { text: source };
  }
  const parsed = parseMode === "HTML" ? parseHtml(source) : parseMarkdownV2(source);
  if ("error" in parsed) throw badRequest(`can't parse entities: ${parsed.error}`);
  return parsed.entities.length ? { text: parsed.text, entities: parsed.entities } : { text: parsed.text };
}
