import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "./workspace-manifests.ts";

// Every relative link in README.md and docs/*.md — `[text](path)`, `[text](path#anchor)`,
// `[text](#anchor)`, `<img src="path">` — names a file that exists and, with an anchor, a heading
// in it (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1, -2 for repeats).
// Links in code blocks and code spans are text, not links. Run by scripts/test/docs.unit.test.ts,
// or alone: `node --import tsx scripts/check-doc-links.ts`.

/** The Markdown files checked: the README, and everything under docs/ and deploy/. */
export function docFiles(root = repoRoot): string[] {
  const under = (dir: string): string[] =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
          const path = join(dir, entry.name);
          if (entry.isDirectory()) return under(path);
          return entry.name.endsWith(".md") ? [path] : [];
        })
      : [];
  return ["README.md", ...under("docs"), ...under("deploy")];
}

/** The text outside fenced code blocks, line by line (a fence's lines become empty, keeping numbers). */
function prose(text: string): string[] {
  let fence = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      return "";
    }
    return fence ? "" : line.replace(/`[^`]*`/g, (span) => " ".repeat(span.length));
  });
}

/** GitHub's anchor for a heading's text. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a Markdown file has: its headings' slugs (repeats numbered) and explicit `id`/`name`s. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1] ?? "");
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? "");
  }
  return anchors;
}

/** Every broken relative link, as `file:line: target (why)`. */
export function brokenDocLinks(root = repoRoot): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let anchors = anchorCache.get(file);
    if (!anchors) {
      anchors = anchorsOf(readFileSync(join(root, file), "utf8"));
      anchorCache.set(file, anchors);
    }
    return anchors;
  };
  for (const file of docFiles(root)) {
    const lines = prose(readFileSync(join(root, file), "utf8"));
    lines.forEach((line, index) => {
      const targets = [
        ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? ""),
        ...[...line.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? ""),
      ];
      for (const target of targets) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
        const [path = "", anchor] = target.split("#", 2);
        const resolved = path ? relative(root, join(root, dirname(file), decodeURIComponent(path))) : file;
        const where = `${file}:${index + 1}: ${target}`;
        if (resolved.startsWith("..") || !existsSync(join(root, resolved))) {
          problems.push(`${where} (no such file: ${resolved})`);
          continue;
        }
        if (anchor === undefined || anchor === "") continue;
        if (!resolved.endsWith(".md") || statSync(join(root, resolved)).isDirectory()) {
          problems.push(`${where} (an anchor into a file that is not Markdown)`);
          continue;
        }
        if (!anchorsIn(resolved).has(anchor))
          problems.push(`${where} (no heading #${anchor} in ${resolved})`);
      }
    });
  }
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const problems = brokenDocLinks();
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.stdout.write(
    problems.length === 0
      ? `${docFiles().length} files, every link resolves\n`
      : `${problems.length} broken links\n`,
  );
  process.exitCode = problems.length === 0 ? 0 : 1;
}
