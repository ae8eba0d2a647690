export { BotApiError } from "./api/errors.ts";
export { parseHtml } from "./formatting/html.ts";
export { parseMarkdownV2 } from "./formatting/markdown-v2.ts";
export { startFakeTelegram } from "./start.ts";
export type * from "./types.ts";
