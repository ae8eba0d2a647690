// Card JSON as Feishu checks it before it takes a card (a message, a patch, or a callback's answer):
// strictly, so that a card the fake takes is one Feishu would take. Schema 2.0 dropped the 1.0
// `action` and `note` containers (ErrCode 200861, "unsupported tag action" — every approval card
// with buttons in an action container is refused), nests elements under `body`, and only has
// shared cards (config.update_multi may not be false). At most 200 elements and 30 KB of JSON.

export interface CardProblem {
  /** Feishu's inner ErrCode (in the message's `ext`). */
  errCode: number;
  path: string;
  message: string;
}

export const MAX_CARD_BYTES = 30 * 1024;
export const MAX_CARD_ELEMENTS = 200;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const TEXT_TAGS = new Set(["plain_text", "lark_md"]);
const BUTTON_TYPES = new Set([
  "default",
  "primary",
  "danger",
  "text",
  "primary_text",
  "danger_text",
  "primary_filled",
  "danger_filled",
  "laser",
]);
const FLEX_MODES = new Set(["none", "stretch", "flow", "bisect", "trisect"]);
const REMOVED_IN_V2 = new Set(["action", "note"]);
const KEYS: Record<string, Set<string>> = {
  card: new Set(["schema", "config", "card_link", "header", "body"]),
  config: new Set([
    "update_multi",
    "streaming_mode",
    "width_mode",
    "enable_forward",
    "enable_forward_interaction",
    "summary",
    "locales",
    "style",
  ]),
  markdown: new Set(["tag", "content", "text_size", "text_align", "icon", "element_id", "margin"]),
  hr: new Set(["tag", "element_id", "margin"]),
  div: new Set(["tag", "text", "icon", "element_id", "margin"]),
  button: new Set([
    "tag",
    "text",
    "type",
    "size",
    "width",
    "icon",
    "disabled",
    "disabled_tips",
    "hover_tips",
    "confirm",
    "behaviors",
    "name",
    "element_id",
    "margin",
    "form_action_type",
  ]),
  column_set: new Set([
    "tag",
    "columns",
    "flex_mode",
    "horizontal_spacing",
    "horizontal_align",
    "background_style",
    "margin",
    "element_id",
  ]),
  column: new Set([
    "tag",
    "elements",
    "width",
    "weight",
    "vertical_align",
    "vertical_spacing",
    "direction",
    "padding",
    "background_style",
    "element_id",
  ]),
};

class Checker {
  elements = 0;
  problem: CardProblem | undefined;

  fail(errCode: number, path: string, message: string): false {
    this.problem ??= { errCode, path, message };
    return false;
  }

  keys(node: Json, allowed: Set<string> | undefined, path: string): boolean {
    const unknown = Object.keys(node).find((key) => !allowed?.has(key));
    return unknown === undefined || this.fail(200621, `${path} -> ${unknown}`, `unknown field ${unknown}`);
  }

  text(value: unknown, path: string, required: boolean): boolean {
    if (value === undefined && !required) return true;
    if (!isObject(value) || !TEXT_TAGS.has(String(value.tag)) || typeof value.content !== "string")
      return this.fail(200621, path, "text must be { tag: plain_text | lark_md, content: string }");
    return true;
  }

  elementList(list: unknown, path: string): boolean {
    if (!Array.isArray(list)) return this.fail(200621, path, "elements must be an array");
    return list.every((element, index) => this.element(element, `${path} -> [${index}]`));
  }

  element(node: unknown, path: string): boolean {
    if (!isObject(node) || typeof node.tag !== "string")
      return this.fail(200621, path, "an element must be an object with a tag");
    const where = `${path}(tag: ${node.tag})`;
    this.elements += 1;
    if (this.elements > MAX_CARD_ELEMENTS)
      return this.fail(200862, where, `a card has at most ${MAX_CARD_ELEMENTS} elements`);
    if (REMOVED_IN_V2.has(node.tag))
      return this.fail(
        200861,
        where,
        `cards of schema V2 no longer support this capability; ErrorValue: unsupported tag ${node.tag}`,
      );
    if (!this.keys(node, KEYS[node.tag], where)) return false;
    switch (node.tag) {
      case "markdown":
        return typeof node.content === "string" || this.fail(200621, where, "markdown needs content");
      case "hr":
        return true;
      case "div":
        return this.text(node.text, `${where} -> text`, true);
      case "button":
        return this.button(node, where);
      case "column_set":
        return this.columnSet(node, where);
      default:
        return this.fail(200861, where, `unsupported tag ${node.tag}`);
    }
  }

  button(node: Json, path: string): boolean {
    if (!this.text(node.text, `${path} -> text`, true)) return false;
    if ((node.text as Json).content === "") return this.fail(200621, path, "button text must not be empty");
    if (node.type !== undefined && !BUTTON_TYPES.has(String(node.type)))
      return this.fail(200621, `${path} -> type`, `unknown button type ${String(node.type)}`);
    if (node.behaviors === undefined) return true;
    if (!Array.isArray(node.behaviors)) return this.fail(200621, `${path} -> behaviors`, "must be an array");
    return node.behaviors.every((behavior, index) => {
      const where = `${path} -> behaviors -> [${index}]`;
      if (!isObject(behavior)) return this.fail(200621, where, "a behavior must be an object");
      if (behavior.type === "callback")
        return isObject(behavior.value) || typeof behavior.value === "string"
          ? true
          : this.fail(200621, where, "a callback needs a value (object or string)");
      if (behavior.type === "open_url")
        return (
          typeof behavior.default_url === "string" || this.fail(200621, where, "open_url needs default_url")
        );
      return this.fail(200621, where, `unknown behavior ${String(behavior.type)}`);
    });
  }

  columnSet(node: Json, path: string): boolean {
    if (node.flex_mode !== undefined && !FLEX_MODES.has(String(node.flex_mode)))
      return this.fail(200621, `${path} -> flex_mode`, `unknown flex_mode ${String(node.flex_mode)}`);
    if (!Array.isArray(node.columns))
      return this.fail(200621, `${path} -> columns`, "columns must be an array");
    return node.columns.every((column, index) => {
      const where = `${path} -> columns -> [${index}]`;
      if (!isObject(column) || column.tag !== "column")
        return this.fail(200621, where, "a column_set holds only columns");
      this.elements += 1;
      if (!this.keys(column, KEYS.column, where)) return false;
      const width = column.width;
      if (width !== undefined && width !== "auto" && width !== "weighted" && !/^\d+px$/.test(String(width)))
        return this.fail(200621, `${where} -> width`, `bad column width ${String(width)}`);
      return this.elementList(column.elements ?? [], `${where} -> elements`);
    });
  }
}

/** A 1.0 card: elements at the top, the old containers allowed. Only its shape is checked. */
function checkV1(card: Json): CardProblem | undefined {
  const elements = card.elements ?? (isObject(card.i18n_elements) ? [] : undefined);
  if (!Array.isArray(elements)) return { errCode: 200621, path: "ROOT", message: "a card needs elements" };
  const bad = elements.findIndex((element) => !isObject(element) || typeof element.tag !== "string");
  return bad >= 0
    ? { errCode: 200621, path: `ROOT -> elements -> [${bad}]`, message: "bad element" }
    : undefined;
}

/** Why Feishu would refuse this card, or undefined when it takes it. */
export function cardProblem(card: unknown): CardProblem | undefined {
  if (!isObject(card)) return { errCode: 200621, path: "ROOT", message: "parse card json err" };
  if (Buffer.byteLength(JSON.stringify(card)) > MAX_CARD_BYTES)
    return { errCode: 200860, path: "ROOT", message: `card is over ${MAX_CARD_BYTES} bytes` };
  if (card.type === "template") return undefined;
  if (card.schema === undefined) return checkV1(card);
  const checker = new Checker();
  if (card.schema !== "2.0") return { errCode: 200621, path: "ROOT -> schema", message: "unknown schema" };
  if (!checker.keys(card, KEYS.card, "ROOT")) return checker.problem;
  if (card.config !== undefined) {
    if (!isObject(card.config))
      return { errCode: 200621, path: "ROOT -> config", message: "must be an object" };
    if (!checker.keys(card.config, KEYS.config, "ROOT -> config")) return checker.problem;
    if (card.config.update_multi === false)
      return {
        errCode: 200621,
        path: "ROOT -> config -> update_multi",
        message: "schema V2 cards are always shared",
      };
  }
  if (
    card.header !== undefined &&
    !checker.text((card.header as Json | undefined)?.title, "ROOT -> header -> title", true)
  )
    return checker.problem;
  if (!isObject(card.body))
    return { errCode: 200621, path: "ROOT -> body", message: "a V2 card needs a body" };
  checker.elementList(card.body.elements, "ROOT -> body -> elements");
  return checker.problem;
}

/** Feishu's answer to a refused card: code 230099, the inner error in `ext`. */
export function cardProblemMessage(problem: CardProblem): string {
  return `Failed to create card content, ext=ErrCode: ${problem.errCode}; ErrMsg: ${problem.message}; ErrPath: ${problem.path};`;
}
