import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Ajv } from "ajv";
import { DockerfileParser, type Instruction } from "dockerfile-ast";
import { validate } from "dockerfile-utils";
import { parse } from "yaml";

// What `docker build --check` and `docker compose config` would say, without a Docker engine:
// the Dockerfile through dockerfile-utils (the Dockerfile language server's linter), plus
// the references it leaves alone (stages, COPY --from, ARGs), and the compose file, interpolated
// as compose does with nothing set, against the Compose Specification's JSON schema.

export interface Step {
  keyword: string;
  /** The arguments as written, continuation lines joined, whitespace collapsed. */
  args: string;
}

export interface Stage {
  name: string | undefined;
  /** The base image as written (`${NODE_IMAGE}`) and with the global ARGs' defaults put in. */
  image: string;
  baseImage: string;
  steps: Step[];
}

/** An instruction's text after its keyword, flags included (the AST's argument views drop them). */
const argsOf = (instruction: Instruction) =>
  instruction
    .getTextContent()
    .replace(/\\\r?\n/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\S+ ?/, "");

/** The global ARGs (before the first FROM) and their defaults. */
function globalArgs(text: string): Map<string, string> {
  const args = new Map<string, string>();
  for (const arg of DockerfileParser.parse(text).getInitialARGs()) {
    const property = arg.getProperty();
    if (property) args.set(property.getName(), property.getValue() ?? "");
  }
  return args;
}

const withArgs = (value: string, args: Map<string, string>) =>
  value.replace(
    /\$\{(\w+)\}|\$(\w+)/g,
    (whole, braced?: string, bare?: string) => args.get(braced ?? bare ?? "") ?? whole,
  );

export function dockerfileStages(text: string): Stage[] {
  const dockerfile = DockerfileParser.parse(text);
  const args = globalArgs(text);
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const keyword = instruction.getKeyword();
    if (keyword === "FROM") {
      const [image = "", as, name] = argsOf(instruction).split(" ");
      stages.push({
        name: as?.toUpperCase() === "AS" ? name : undefined,
        image,
        baseImage: withArgs(image, args),
        steps: [],
      });
    } else stages.at(-1)?.steps.push({ keyword, args: argsOf(instruction) });
  }
  return stages;
}

/** Every problem found: the linter's diagnostics, then references that lead nowhere. Empty when sound. */
export function dockerfileProblems(text: string): string[] {
  const at = (instruction: Instruction) => `line ${instruction.getRange().start.line + 1}`;
  const problems = validate(text).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
  const dockerfile = DockerfileParser.parse(text);
  const args = globalArgs(text);
  const stages: string[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const line = instruction.getRange().start.line;
    const keyword = instruction.getKeyword();
    // A FROM line sees only the global ARGs; any other line, the ARGs and ENVs its stage declared.
    const known = keyword === "FROM" ? [...args.keys()] : dockerfile.getAvailableVariables(line);
    for (const variable of instruction.getVariables())
      if (!known.includes(variable.getName()))
        problems.push(
          `${at(instruction)}: ${keyword} uses $${variable.getName()}, which no ARG or ENV before it declares`,
        );
    if (keyword === "FROM") {
      const [image = "", , name] = argsOf(instruction).split(" ");
      const base = withArgs(image, args);
      if (!stages.includes(base) && !/[:/@]/.test(base))
        problems.push(
          `${at(instruction)}: FROM ${image}: no earlier stage is named ${base}, and it names no tagged image`,
        );
      if (name) stages.push(name);
    }
    const from = /(?:^|\s)--from=(\S+)/.exec(argsOf(instruction))?.[1];
    if ((keyword === "COPY" || keyword === "ADD") && from && !stages.includes(from) && !/[:/@]/.test(from))
      problems.push(`${at(instruction)}: ${keyword} --from=${from}: no earlier stage has that name`);
  }
  return problems;
}

const composeSchema = (() => {
  const require = createRequire(import.meta.url);
  // dclint ships the Compose Specification's schema (compose-spec.json) for its own validation.
  const path = join(dirname(require.resolve("dclint/package.json")), "schemas", "compose.schema.json");
  const schema = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  // It names draft-07 as https://json-schema.org/draft-07/schema, which Ajv knows as http://…#.
  delete schema.$schema;
  return schema;
})();

/** `${VAR:-default}`, `${VAR-default}`, `${VAR}` and `$$` as compose reads them with nothing set. */
export function interpolate(value: unknown): unknown {
  if (typeof value === "string")
    return value.replace(/\$\$|\$\{(\w+)(?::?-([^}]*))?\}/g, (whole, _name?: string, fallback?: string) =>
      whole === "$$" ? "$" : (fallback ?? ""),
    );
  if (Array.isArray(value)) return value.map(interpolate);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, interpolate(inner)]));
  return value;
}

/** The compose file's problems: interpolation it cannot read, then the schema's complaints. */
export function composeProblems(text: string): string[] {
  const document = interpolate(parse(text));
  const leftover = JSON.stringify(document).match(/\$\{[^}]*\}?/g) ?? [];
  const problems = leftover.map((found) => `cannot interpolate ${found}`);
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  if (!ajv.validate(composeSchema, document))
    for (const error of ajv.errors ?? [])
      problems.push(`${error.instancePath || "/"}: ${error.message} ${JSON.stringify(error.params)}`);
  return problems;
}
