import { createRequire } from "node:module";
import { z } from "zod";

// One skill: `skills/<name>/SKILL.md`, YAML front matter (`name`, `description`) then the body
// the model reads when it uses the skill (the Agent Skills format). A bad file is a problem
// to report, never an exception.

export const SKILL_FILE = "SKILL.md";
/** Bigger than this is not read: the whole body goes into the model's context. */
export const MAX_SKILL_BYTES = 64 * 1024;

const text = () =>
  z.string({ error: (issue) => (issue.input === undefined ? "is missing" : "must be a string") });

const SkillName = text().regex(
  /^[a-z0-9][a-z0-9_-]{0,63}$/,
  "must be lowercase letters, digits, '-' or '_' (at most 64)",
);

/** Other keys (license, allowed-tools, metadata…) are allowed and ignored. */
export const SkillFrontMatter = z.looseObject({
  name: SkillName,
  description: text().trim().min(1, "is empty").max(1024, "at most 1024 characters"),
});

export interface Skill {
  name: string;
  description: string;
  body: string;
  /** The skill's directory: files its body mentions are relative to it. */
  dir: string;
}

export type SkillParse = { ok: true; skill: Skill } | { ok: false; problem: string };

/**
 * The YAML parser, loaded with the first skill read: a host without skills never loads it (some 70
 * modules of the yaml package). Synchronous, as parsing a skill is.
 */
const yaml = () => createRequire(import.meta.url)("yaml") as typeof import("yaml");

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Parses a SKILL.md found in `dir`, whose last segment is `dirName` (the skill's name must match it). */
export function parseSkill(dir: string, dirName: string, text: string): SkillParse {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { ok: false, problem: "no front matter (a --- block with name and description first)" };
  let data: unknown;
  try {
    data = yaml().parse(match[1] ?? "");
  } catch (error) {
    return {
      ok: false,
      problem: `front matter is not valid YAML: ${(error as Error).message.split("\n")[0]?.replace(/:$/, "")}`,
    };
  }
  const parsed = SkillFrontMatter.safeParse(data ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "front matter"}: ${i.message}`);
    return { ok: false, problem: `bad front matter: ${issues.join("; ")}` };
  }
  if (parsed.data.name !== dirName)
    return { ok: false, problem: `name "${parsed.data.name}" does not match its directory "${dirName}"` };
  const body = text.slice(match[0].length).trim();
  return { ok: true, skill: { name: parsed.data.name, description: parsed.data.description, body, dir } };
}
