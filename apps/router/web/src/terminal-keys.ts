// The bytes a terminal key sends, for the key bar a phone's keyboard lacks: the same sequences
// xterm.js sends for the real keys (VT100/xterm), so programs cannot tell the two apart.

export type BarKey =
  | "escape"
  | "tab"
  | "up"
  | "down"
  | "right"
  | "left"
  | "home"
  | "end"
  | "pageUp"
  | "pageDown"
  | "ctrlC"
  | "ctrlD";

/** Modifiers held for the next key (tapped once on the bar, released after one key). */
export interface Modifiers {
  ctrl: boolean;
  alt: boolean;
}

const ESC = "\x1b";

/** The final byte of each cursor key, after CSI (`ESC [`) or, in application cursor mode, SS3 (`ESC O`). */
const CURSOR_FINAL = { up: "A", down: "B", right: "C", left: "D", home: "H", end: "F" } as const;

/**
 * The sequence for a key of the bar. In application cursor mode (DECCKM, set by full-screen programs
 * such as vim or less) the arrows and Home/End are sent as SS3 (`ESC O A`), as a real keyboard does.
 */
export function keySequence(key: BarKey, applicationCursor = false): string {
  const cursor = applicationCursor ? `${ESC}O` : `${ESC}[`;
  switch (key) {
    case "escape":
      return ESC;
    case "tab":
      return "\t";
    case "up":
    case "down":
    case "right":
    case "left":
    case "home":
    case "end":
      return `${cursor}${CURSOR_FINAL[key]}`;
    case "pageUp":
      return `${ESC}[5~`;
    case "pageDown":
      return `${ESC}[6~`;
    case "ctrlC":
      return "\x03";
    case "ctrlD":
      return "\x04";
  }
}

/**
 * The control character for one typed character (`c` → ETX, `[` → ESC, space → NUL, `?` → DEL), or
 * the input unchanged when it has none (a word the keyboard's suggestions inserted, an arrow).
 */
export function controlOf(data: string): string {
  if (data.length !== 1) return data;
  if (data === " " || data === "@") return "\x00";
  if (data === "?") return "\x7f";
  const code = data.toUpperCase().charCodeAt(0);
  if (code >= 0x40 && code <= 0x5f) return String.fromCharCode(code & 0x1f);
  return data;
}

/** What a key (typed or from the bar) sends with the held modifiers: Ctrl first, then Alt's ESC prefix. */
export function withModifiers(data: string, modifiers: Modifiers): string {
  const controlled = modifiers.ctrl ? controlOf(data) : data;
  return modifiers.alt ? `${ESC}${controlled}` : controlled;
}
