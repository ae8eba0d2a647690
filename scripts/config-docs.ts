import { readFileSync, writeFileSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { HostConfigFields } from "@phonework/host";
import { RouterConfigFields } from "@phonework/router";
import { StandaloneConfigSchema } from "@phonework/standalone";
import { KEY_DOCS } from "./config-docs/key-docs.ts";
import { repoRoot } from "./workspace-manifests.ts";

// `pnpm docs:config`: docs/configuration-keys.md, every key of the router's, the host's and the
// standalone's config schemas with its default (read from the schema) and its meaning (the
// schema's `.describe()` text, else KEY_DOCS beside this script). A unit test
// (scripts/test/docs.unit.test.ts) fails when the committed file is not what this writes.

export const CONFIG_KEYS_DOC = "docs/configuration-keys.md";

type Program = "router" | "host" | "standalone";
const PROGRAMS: readonly Program[] = ["router", "host", "standalone"];

/** What this script reads of a zod 4 schema: its definition and its `.describe()` text. */
interface SchemaNode {
  description?: string | undefined;
  _zod: {
    def: { type: string; in?: SchemaNode; innerType?: SchemaNode; shape?: Record<string, SchemaNode> };
  };
}

/** The object under a schema's refinements and transforms (the standalone's is a pipe). */
function shapeOf(schema: unknown): Record<string, SchemaNode> {
  let node = schema as SchemaNode;
  while (node._zod.def.type === "pipe" && node._zod.def.in) node = node._zod.def.in;
  const { shape } = node._zod.def;
  if (!shape) throw new Error(`not an object schema: ${node._zod.def.type}`);
  return shape;
}

/** The default a key gets when it is not set, as it would be written in the config (before transforms). */
function inputDefault(field: SchemaNode): { value: unknown } | undefined {
  const def = field._zod.def as SchemaNode["_zod"]["def"] & { defaultValue?: unknown };
  if (def.type === "pipe" && def.in) return inputDefault(def.in);
  if (def.type === "default") return { value: def.defaultValue };
  return undefined;
}

function display(value: unknown): string {
  if (value === undefined) return "none";
  if (Array.isArray(value)) return value.length === 0 ? "none" : `\`${value.join(",")}\``;
  return `\`${String(value)}\``;
}

/** A default worked out on this machine (its home, name or time zone, or a random value) cannot be written down. */
function machineSpecific(field: SchemaNode): boolean {
  const first = inputDefault(field);
  const second = inputDefault(field);
  if (JSON.stringify(first) !== JSON.stringify(second)) return true;
  const text = JSON.stringify(first?.value ?? "");
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return [homedir(), hostname(), zone].some((local) => local.length > 1 && text.includes(local));
}

/** A default under this machine's home directory, as `~/…`. */
function homeRelativeDefault(field: SchemaNode): string | undefined {
  const value = inputDefault(field)?.value;
  return typeof value === "string" && value.startsWith(homedir())
    ? `~${value.slice(homedir().length)}`
    : undefined;
}

export interface KeyRow {
  key: string;
  programs: Program[];
  default: string;
  description: string;
}

/** Every key of the three schemas, router's first, each once, with the programs that read it. */
export function configKeyRows(): KeyRow[] {
  const shapes: Record<Program, Record<string, SchemaNode>> = {
    router: shapeOf(RouterConfigFields),
    host: shapeOf(HostConfigFields),
    standalone: shapeOf(StandaloneConfigSchema),
  };
  const keys = [...new Set(PROGRAMS.flatMap((program) => Object.keys(shapes[program])))];
  const problems: string[] = [];
  const rows = keys.map((key): KeyRow => {
    const programs = PROGRAMS.filter((program) => shapes[program][key]);
    const fields = programs.map((program) => shapes[program][key] as SchemaNode);
    const docs = KEY_DOCS[key];
    const description = fields.find((field) => field.description)?.description ?? docs?.description ?? "";
    if (!description)
      problems.push(`${key}: no description (add .describe() to its schema, or an entry in KEY_DOCS)`);
    // The schema's default, one text when every program has the same, else the first's and the others'.
    const byProgram = programs.map(
      (program, index) => [program, display(inputDefault(fields[index] as SchemaNode)?.value)] as const,
    );
    const others = byProgram.filter(([, text]) => text !== byProgram[0]?.[1]);
    const fromSchema =
      others.length === 0
        ? (byProgram[0]?.[1] ?? "none")
        : `${byProgram[0]?.[1]} (${others.map(([program, text]) => `${program}: ${text}`).join("; ")})`;
    const special = fields.some(machineSpecific);
    let defaultText = fromSchema;
    if (docs?.default !== undefined) {
      // Words in place of the schema's default only where it has none, or one it works out at start.
      if (!special && others.length === 0 && fromSchema !== "none")
        problems.push(`${key}: the schema's default is ${fromSchema}; remove the default text in KEY_DOCS`);
      // A path under the home directory is checked all the same, written with `~`.
      const home = fields.map(homeRelativeDefault).find((path) => path !== undefined);
      if (home && !docs.default.includes(`\`${home}\``))
        problems.push(
          `${key}: the schema's default is \`${home}\`; the default text in KEY_DOCS does not say so`,
        );
      defaultText = docs.default;
    } else if (special) {
      problems.push(
        `${key}: its default is worked out on each machine; write it as text in KEY_DOCS (default)`,
      );
    }
    return { key, programs, default: defaultText, description };
  });
  for (const key of Object.keys(KEY_DOCS))
    if (!keys.includes(key)) problems.push(`${key}: in KEY_DOCS but in no config schema (remove it)`);
  if (problems.length > 0) throw new Error(`configuration keys:\n${problems.join("\n")}`);
  return rows;
}

const SECTIONS: Array<{ title: string; programs: string }> = [
  { title: "Every program", programs: "router,host,standalone" },
  { title: "Router and standalone", programs: "router,standalone" },
  { title: "Host and standalone", programs: "host,standalone" },
  { title: "Host only (how it reaches the router)", programs: "host" },
];

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** The whole of docs/configuration-keys.md. */
export function configKeysMarkdown(): string {
  const rows = configKeyRows();
  const lines = [
    "# Configuration keys",
    "",
    "<!-- Generated by `pnpm docs:config` (scripts/config-docs.ts) from the zod config schemas: do not edit. -->",
    "",
    "Every key `phonework router`, `phonework host` and `phonework standalone` read, with its default",
    "and meaning; `pair`, `doctor` and `service` read the keys of the program they work for. How",
    "settings are given (flags, the environment, a YAML file) and how they are checked:",
    "[Configuration](configuration.md). A key's value in the environment is a string",
    "(`KEY=value`; lists comma-separated); in the YAML file, `KEY: value` (lists as YAML lists).",
    "",
  ];
  for (const section of SECTIONS) {
    const inSection = rows.filter((row) => row.programs.join(",") === section.programs);
    if (inSection.length === 0) continue;
    lines.push(`## ${section.title}`, "", "| key | default | meaning |", "| --- | --- | --- |");
    for (const row of inSection)
      lines.push(`| \`${row.key}\` | ${cell(row.default)} | ${cell(row.description)} |`);
    lines.push("");
  }
  const covered = new Set(SECTIONS.map((section) => section.programs));
  const stray = rows.filter((row) => !covered.has(row.programs.join(",")));
  if (stray.length > 0)
    throw new Error(
      `no section for ${stray.map((row) => `${row.key} (${row.programs.join(", ")})`).join("; ")}`,
    );
  return lines.join("\n");
}

const target = join(repoRoot, CONFIG_KEYS_DOC);

/** The committed file, or "" when it is missing. */
export function committedConfigKeys(): string {
  try {
    return readFileSync(target, "utf8");
  } catch {
    return "";
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeFileSync(target, configKeysMarkdown());
  process.stdout.write(`wrote ${CONFIG_KEYS_DOC}\n`);
}
