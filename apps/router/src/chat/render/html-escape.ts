// Escaping for Telegram's HTML parse mode, apart from the Markdown renderer so that text can be
// made safe without loading the parser.

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/** Text for Telegram's HTML: `&`, `<` and `>` as entities, so nothing in it reads as markup. */
export const escapeHtml = (text: string) => text.replace(/[&<>]/g, (char) => ENTITIES[char] ?? char);

/** An attribute value (inside double quotes): `"` too. */
export const escapeAttribute = (text: string) => text.replace(/[&<>"]/g, (char) => ENTITIES[char] ?? char);
