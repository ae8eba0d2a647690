import { createHash, randomBytes } from "node:crypto";

// Identifiers shaped like Feishu's, so code that sniffs prefixes (om_, oc_, ou_, cli_) behaves as in
// production. Random per fake: the SDK's default token cache is keyed by app id and process-global.

export const hex = (bytes: number): string => randomBytes(bytes).toString("hex");

export const newAppId = (): string => `cli_${hex(8)}`;
export const newMessageId = (): string => `om_${hex(16)}`;
export const newChatId = (): string => `oc_${hex(16)}`;
export const newOpenId = (): string => `ou_${hex(16)}`;
export const newEventId = (): string => hex(16);
export const newLogId = (): string => `${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}${hex(10)}`;

/** The same input always yields the same id: a user's p2p chat with the bot is stable. */
export function stableId(prefix: string, seed: string): string {
  return `${prefix}${createHash("sha256").update(seed).digest("hex").slice(0, 32)}`;
}
