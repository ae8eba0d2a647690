import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { repoRoot } from "./workspace-manifests.ts";

// `pnpm check`'s structure check. Inside each app and package, no two folders import each other,
// directly or through others, and no two files do. A folder is a concern (registry/, routing/,
// coding/…); a cycle between two means neither can be read, changed or tested without the other.
// Type-only imports count: they tie the folders' meanings together just as much.

const ROOTS = [
  "apps/router/src",
  "apps/host/src",
  "apps/cli/src",
  "apps/standalone/src",
  "packages/protocol/src",
  "packages/runtime/src",
  "packages/testkit/src",
];

// Both apps keep functions a reader can hold in their head, and composition roots that only wire.
const APPS = ["apps/router/src", "apps/host/src"];
const MAX_FUNCTION_LINES = 120;
const ROOT_FUNCTIONS: Record<string, number> = { createRouter: 80, createHost: 80 };

/** Every .ts/.tsx file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The files `file` imports by relative path, resolved (imports of packages are not edges here). */
function localImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => resolve(dirname(file), name));
}

/** Strongly connected components of size > 1 (Tarjan), each sorted. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, indices.get(next) ?? 0));
    }
    if (low.get(node) !== indices.get(node)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

const addEdge = (graph: Map<string, Set<string>>, from: string, to: string) => {
  if (!graph.has(from)) graph.set(from, new Set());
  if (!graph.has(to)) graph.set(to, new Set());
  if (from !== to) graph.get(from)?.add(to);
};

/** Every cycle in `trees` and every over-long function in `apps`, one line each. */
export function structureProblems(trees: readonly string[], apps: readonly string[]): string[] {
  const problems: string[] = [];
  for (const base of trees) {
    const root = relative(repoRoot, base);
    const folders = new Map<string, Set<string>>();
    const files = new Map<string, Set<string>>();
    for (const file of sourceFiles(base)) {
      const from = relative(base, file);
      for (const target of localImports(file)) {
        const to = relative(base, target.replace(/\.js$/, ".ts"));
        if (to.startsWith("..")) continue; // another package's files: not this tree's structure
        addEdge(files, from, to);
        addEdge(folders, dirname(from), dirname(to));
      }
    }
    for (const cycle of cycles(folders))
      problems.push(`${root}: folders import each other: ${cycle.join(" ⇄ ")}`);
    for (const cycle of cycles(files))
      problems.push(`${root}: files import each other: ${cycle.join(" ⇄ ")}`);
  }

  /** Every function in `file` with its name (where it has one) and its length in lines. */
  function functionLengths(file: string): Array<{ name: string; line: number; lines: number }> {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const found: Array<{ name: string; line: number; lines: number }> = [];
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
        found.push({
          name: named?.getText(source) ?? "(anonymous)",
          line: start + 1,
          lines: end - start + 1,
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  }

  for (const base of apps)
    for (const file of sourceFiles(base))
      for (const fn of functionLengths(file)) {
        const limit = ROOT_FUNCTIONS[fn.name] ?? MAX_FUNCTION_LINES;
        if (fn.lines > limit)
          problems.push(
            `${relative(repoRoot, file)}:${fn.line}: ${fn.name} is ${fn.lines} lines (at most ${limit})`,
          );
      }
  return problems;
}

// Run as a script: given directories (a test's trees) are checked instead of the repository's.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const given = process.argv.slice(2).map((dir) => resolve(dir));
  const trees = given.length > 0 ? given : ROOTS.map((root) => join(repoRoot, root));
  const apps = given.length > 0 ? given : APPS.map((root) => join(repoRoot, root));
  const problems = structureProblems(trees, apps);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join("\n")}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `no folder or file cycles in ${trees.length} source trees; no function over ${MAX_FUNCTION_LINES} lines in the apps, composition roots within 80\n`,
  );
}
