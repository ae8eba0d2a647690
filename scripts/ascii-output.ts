import { readFileSync, writeFileSync } from "node:fs";
import { type TransformOptions, transformSync } from "esbuild";

// The bundle's files as ASCII. V8 keeps each loaded file's source for as long as the process runs:
// one byte a character, or two for the whole file if one character is above U+00FF. esbuild escapes
// strings, templates and names, but prints the comments it keeps (inside classes and object
// literals) and regular expressions as written: one "…" in a comment doubled the router's 1.7 MB
// chunk and zod's 0.8 MB in memory (~2.5 MB more resident in every router and host).
// What esbuild leaves above U+007F is in comments (any text will do), regular expressions (where
// `\uXXXX` is the same character, with or without the u flag, in a class or not) or the raw text of
// a tagged template (where it would not be the same: there is none in the bundle today). So every
// such character is written `\uXXXX`; `pnpm package` proves for each file that only comments and
// regular expressions changed (proveEscaped), and refuses to pack a bundle where anything else did.

/** Each UTF-16 unit above U+007F (no u flag: a surrogate pair is two). */
const NON_ASCII = /[\u0080-\uffff]/g;

/** Every UTF-16 unit above U+007F as `\uXXXX`; a backslash escaping it (in a regular expression) goes. */
export function escapeNonAscii(code: string): string {
  let out = "";
  let from = 0;
  for (const match of code.matchAll(NON_ASCII)) {
    let at = match.index;
    let slashes = 0;
    while (code[at - 1 - slashes] === "\\") slashes++;
    if (slashes % 2 === 1) at--; // `\…` in a regular expression is `…`; `\\u2026` would not be
    out += `${code.slice(from, at)}\\u${match[0].charCodeAt(0).toString(16).padStart(4, "0")}`;
    from = match.index + 1;
  }
  return from === 0 ? code : out + code.slice(from);
}

// Comments dropped and templates made into calls whose raw text is an escaped string: the program
// printed this way from the file before and after must differ only where escaping the printed
// original changes it (its regular expressions). A tagged template's raw text would differ.
const PROOF: TransformOptions = {
  minifyWhitespace: true,
  format: "esm",
  charset: "ascii",
  supported: { "template-literal": false },
  logLevel: "silent",
};

/** Throws if `escaped` (escapeNonAscii of `original`) is not the same program as `original`. */
export function proveEscaped(name: string, original: string, escaped: string): void {
  const [before = "", after] = [original, escaped].map((code) => transformSync(code, PROOF).code);
  if (after !== escapeNonAscii(before))
    throw new Error(
      `${name}: escaping its non-ASCII text changed more than comments and regular expressions (a tagged template's raw text?); see scripts/ascii-output.ts`,
    );
}

/** Rewrites `file` with escapeNonAscii when it holds non-ASCII text; with `prove`, checks it first. */
export function asciiFile(file: string, prove = false): void {
  const code = readFileSync(file, "utf8");
  if (!/[\u0080-\uffff]/.test(code)) return;
  const escaped = escapeNonAscii(code);
  if (prove) proveEscaped(file, code, escaped);
  writeFileSync(file, escaped);
}
