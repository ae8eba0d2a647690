// What `/keys` types: text as it is, with keys named in angle brackets, as in Vim's notation:
// <Enter> <Tab> <Esc> <BS> <Space> <Del> <Up> <Down> <Left> <Right> <Home> <End> <PgUp> <PgDn>,
// <C-x> for Ctrl and any key x, and <lt> for a literal "<". Names are case-insensitive; a bracketed
// word that names no key (`<html>`) is typed as written. A line break in the message is Enter.

const NAMED: Record<string, string> = {
  enter: "\r",
  cr: "\r",
  return: "\r",
  tab: "\t",
  esc: "\x1b",
  bs: "\x7f",
  backspace: "\x7f",
  space: " ",
  lt: "<",
  del: "\x1b[3~",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[H",
  end: "\x1b[F",
  pgup: "\x1b[5~",
  pgdn: "\x1b[6~",
};

/** Ctrl with a key: the letter's code with the top bits cleared; @ [ \ ] ^ _ ? as on a terminal. */
function control(key: string): string | undefined {
  if (key.length !== 1) return key.toLowerCase() === "space" ? "\0" : undefined;
  const code = key.toUpperCase().charCodeAt(0);
  if (code === 0x3f) return "\x7f"; // C-?
  if (code >= 0x40 && code <= 0x5f) return String.fromCharCode(code & 0x1f);
  return undefined;
}

function key(name: string): string | undefined {
  const ctrl = /^c-(.+)$/i.exec(name);
  if (ctrl?.[1]) return control(ctrl[1]);
  return NAMED[name.toLowerCase()];
}

/** The bytes to write to the PTY for `text` in key notation. */
export function parseKeys(text: string): string {
  return text
    .replace(/\r?\n/g, "\r")
    .replace(/<([^<>\s]{1,16})>/g, (written, name: string) => key(name) ?? written);
}
