import { type ParseEntry, parse } from "shell-quote";

// Turns a shell command line into the simple commands it would run, looking through the usual
// wrappers, so the blocklist judges `rm` itself and not `sudo`, `sh -c '…'` or `$(…)`. It reads
// the text the way a shell would tokenise it (shell-quote), then errs towards finding more
// commands, not fewer: backticks, `$(`, newlines and here-document bodies all start a new
// command. It does not evaluate anything, so what is only known at run time (variables, output
// of other commands, files, interpreters) stays invisible to it; see shell-guard.ts.

/** One simple command: its words after wrappers, and the files its output is redirected to. */
export interface SimpleCommand {
  /** argv[0] is the bare program name (`/bin/rm` and `\rm` become `rm`). */
  argv: string[];
  redirects: string[];
}

/** Nesting (a shell inside a shell inside…) deeper than this is refused rather than followed. */
export const MAX_NESTING = 8;

export class NestedTooDeep extends Error {}

const SEPARATORS = new Set([";", ";;", "&", "&&", "||", "|", "|&", "(", ")", "<(", ">("]);

/** Programs that run their arguments as shell text. */
const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "ash",
  "fish",
  "eval",
  "su",
  "runuser",
  "ssh",
  "watch",
  "script",
]);

/** Programs that run the rest of their words as a command, with the options that take a value. */
const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "--unset", "--chdir"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p"]),
  nohup: new Set(),
  exec: new Set(["-a"]),
  command: new Set(),
  builtin: new Set(),
  time: new Set(["-f", "-o"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  xargs: new Set(["-I", "-n", "-P", "-L", "-s", "-d", "-E", "-a"]),
  setsid: new Set(),
  busybox: new Set(),
  unbuffer: new Set(),
};

const KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const DURATION = /^\d+(?:\.\d+)?[smhd]?$/;

/** Every simple command in `text`, including those nested in shells, `$(…)`, `find -exec` and `xargs`. */
export function simpleCommands(text: string, depth = 0): SimpleCommand[] {
  if (depth > MAX_NESTING) throw new NestedTooDeep();
  const commands: SimpleCommand[] = [];
  const withSubstitutions = backticksAsDollarParens(text);
  for (const body of substitutions(withSubstitutions)) commands.push(...simpleCommands(body, depth + 1));
  for (const words of splitCommands(withSubstitutions)) {
    for (const command of unwrap(words.argv)) {
      commands.push({ argv: command, redirects: words.redirects });
      const [program, ...rest] = command;
      if (program && SHELLS.has(program)) {
        for (const arg of [...rest, rest.join(" ")]) commands.push(...simpleCommands(arg, depth + 1));
      }
    }
  }
  return commands;
}

/** The simple commands of one level of text, before wrappers are looked through. */
function splitCommands(text: string): SimpleCommand[] {
  // An unpaired backtick just ends a command.
  const flattened = text.replace(/\\\r?\n/g, " ").replace(/[`\r\n]/g, " ; ");
  const commands: SimpleCommand[] = [{ argv: [], redirects: [] }];
  let redirectNext = false;
  for (const entry of tokens(flattened)) {
    const current = commands[commands.length - 1] as SimpleCommand;
    if (typeof entry === "string") {
      if (redirectNext) current.redirects.push(entry);
      else current.argv.push(entry);
      redirectNext = false;
    } else if ("op" in entry && entry.op === "glob") {
      current.argv.push(entry.pattern);
    } else if ("op" in entry && SEPARATORS.has(entry.op)) {
      commands.push({ argv: [], redirects: [] });
    } else if ("op" in entry) {
      redirectNext = true; // >, >>, >&, <, <<, <<<…: the next word is a file (or a here-doc tag)
    }
  }
  return commands.filter((command) => command.argv.length > 0 || command.redirects.length > 0);
}

/** `…` is the old spelling of $(…); inside it, \` \\ and \$ stand for themselves (\` nests). */
function backticksAsDollarParens(text: string): string {
  return text.replace(
    /(?<!\\)`((?:[^`\\]|\\[\s\S])*)`/g,
    (_all, body: string) => `$(${body.replace(/\\([`\\$])/g, "$1")})`,
  );
}

/**
 * The bodies of the outermost `$(…)` in `text`, found by counting parentheses in the raw text:
 * bash runs them inside double quotes too, where a word-level tokenizer sees only a string.
 * An unclosed one runs to the end of the text.
 */
function substitutions(text: string): string[] {
  const bodies: string[] = [];
  let start = text.indexOf("$(");
  while (start !== -1) {
    let depth = 0;
    let end = start + 1;
    for (; end < text.length; end++) {
      if (text[end] === "(") depth++;
      else if (text[end] === ")" && --depth === 0) break;
    }
    bodies.push(text.slice(start + 2, end));
    start = text.indexOf("$(", end);
  }
  return bodies;
}

function tokens(text: string): ParseEntry[] {
  try {
    // Variables stay as written ($HOME, not its value): the guard judges the text, not this host.
    return parse(text, (name) => `$${name}`);
  } catch {
    // shell-quote refuses some text bash would still partly run (`${` alone); split it crudely.
    return text
      .split(/([;&|()])/)
      .flatMap((part) =>
        /^[;&|()]$/.test(part) ? [{ op: part } as ParseEntry] : part.split(/\s+/).filter(Boolean),
      );
  }
}

/** The command under its wrappers, plus what `find -exec` would run. */
function unwrap(argv: string[]): string[][] {
  const words = [...argv];
  for (;;) {
    const first = words[0];
    if (first === undefined) return [];
    const program = programName(first);
    if (KEYWORDS.has(first) || ASSIGNMENT.test(first)) {
      words.shift();
      continue;
    }
    const valueOptions = WRAPPERS[program];
    if (valueOptions && words.length > 1) {
      words.shift();
      skipOptions(words, valueOptions);
      if (program === "timeout" && DURATION.test(words[0] ?? "")) words.shift();
      continue;
    }
    words[0] = program;
    return program === "find" ? [words, ...findExecs(words)] : [words];
  }
}

function skipOptions(words: string[], valueOptions: Set<string>): void {
  while (words[0]?.startsWith("-") && words.length > 1) {
    const option = words.shift() as string;
    if (option === "--") return;
    if (valueOptions.has(option)) words.shift();
  }
}

/** `find … -exec CMD … ;` (and -execdir, -ok, -okdir) runs CMD. */
function findExecs(words: string[]): string[][] {
  const commands: string[][] = [];
  words.forEach((word, index) => {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(word)) return;
    const rest = words.slice(index + 1);
    const end = rest.findIndex((w) => w === ";" || w === "+");
    commands.push(...unwrap(end === -1 ? rest : rest.slice(0, end)));
  });
  return commands;
}

/** `/usr/bin/rm` → `rm`, `\rm` → `rm`. */
function programName(word: string): string {
  return (word.split("/").pop() ?? word).replace(/^\\/, "");
}
