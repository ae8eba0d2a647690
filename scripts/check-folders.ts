import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { repoRoot } from "./workspace-manifests.ts";

// `pnpm check`'s dependency check: inside each app and package, no two folders import each other,
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

const problems: string[] = [];
for (const root of ROOTS) {
  const base = join(repoRoot, root);
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
  for (const cycle of cycles(files)) problems.push(`${root}: files import each other: ${cycle.join(" ⇄ ")}`);
}
if (problems.length > 0) {
  process.stderr.write(`${problems.join("\n")}\n`);
  process.exit(1);
}
process.stdout.write(`no folder or file cycles in ${ROOTS.length} source trees\n`);
