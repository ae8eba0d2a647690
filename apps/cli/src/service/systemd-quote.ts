// Quoting for unit files, per systemd.syntax(7) and systemd.service(5) "Command lines": `%` starts
// a specifier anywhere in a value (`%%` is a literal one); in ExecStart `$` starts a variable (`$$`
// is a literal one); a word with spaces, quotes or backslashes is double-quoted, with C escapes.
// And the way back, for reading a unit we wrote (status, tests).

/** A word that needs no quotes once `%` and `$` are doubled. */
const PLAIN_WORD = /^[A-Za-z0-9_@%$+=:,./-]+$/;

const doubleSpecifiers = (value: string) => value.replaceAll("%", "%%");
const doubleDollars = (value: string) => value.replace(/\$/g, () => "$$");

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
const NEEDS_ESCAPE = /[\\"\x00-\x1f\x7f]/g;

function doubleQuoted(value: string): string {
  const escaped = value.replace(NEEDS_ESCAPE, (char) => {
    if (char === "\\" || char === '"') return `\\${char}`;
    return `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
  return `"${escaped}"`;
}

/** One ExecStart= argument. */
export function quoteExecArg(arg: string): string {
  const text = doubleDollars(doubleSpecifiers(arg));
  return PLAIN_WORD.test(text) ? text : doubleQuoted(text);
}

/** A whole ExecStart= value. argv[0] must be absolute: a leading `-`, `@`, `+`, `!` or `:` means something. */
export function execCommandLine(argv: readonly string[]): string {
  if (!argv[0]?.startsWith("/")) throw new Error(`ExecStart needs an absolute path, not ${argv[0]}`);
  return argv.map(quoteExecArg).join(" ");
}

/** One Environment= assignment, quoted (no variable expansion happens there, so `$` stays). */
export function environmentAssignment(name: string, value: string): string {
  return doubleQuoted(doubleSpecifiers(`${name}=${value}`));
}

/** A path for a setting taken verbatim (WorkingDirectory=): only specifiers are escaped. */
export function unitPath(path: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a control character is what it refuses
  if (/[\x00-\x1f\x7f]/.test(path))
    throw new Error(`a unit file cannot hold the path ${JSON.stringify(path)}`);
  return doubleSpecifiers(path);
}

const C_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  s: " ",
};

/**
 * An ExecStart= value split back into argv, as systemd does it: specifiers (only `%%` is resolved;
 * we write no others), quotes and C escapes, then `$$`. Throws on unbalanced quotes.
 */
export function splitCommandLine(value: string): string[] {
  const text = value.replaceAll("%%", "%");
  const words: string[] = [];
  let i = 0;
  const cEscape = (): string => {
    const next = text[i + 1];
    if (next === undefined) throw new Error("a command line ends in a backslash");
    if (next === "x") {
      const hex = text.slice(i + 2, i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new Error(`bad escape \\x${hex}`);
      i += 4;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    i += 2;
    return C_ESCAPES[next] ?? next;
  };
  // systemd splits on ASCII whitespace only.
  const isSpace = (char: string | undefined) =>
    char === " " || char === "\t" || char === "\n" || char === "\r";
  while (i < text.length) {
    if (isSpace(text[i])) {
      i++;
      continue;
    }
    let word = "";
    while (i < text.length && !isSpace(text[i])) {
      const char = text[i] as string;
      if (char === '"' || char === "'") {
        i++;
        while (text[i] !== char) {
          if (i >= text.length) throw new Error(`unbalanced quoting in ${value}`);
          if (text[i] === "\\") word += cEscape();
          else word += text[i++];
        }
        i++;
      } else if (char === "\\") word += cEscape();
      else {
        word += char;
        i++;
      }
    }
    words.push(word.replace(/\$\$/g, () => "$"));
  }
  return words;
}
