import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@phonework/runtime";
import type { Channel, WorkspaceLayout } from "../workspace/workspace-layout.ts";
import { MAX_SKILL_BYTES, parseSkill, SKILL_FILE, type Skill, type SkillParse } from "./skill-file.ts";

// The skills a chat can use: the workspace's skills/ and its channel's skills/. Read at each
// turn, which costs a directory listing and a stat per skill: a file is parsed again only when
// its mtime or size changed. Each problem is logged once, and shown by /skills for as long as it lasts.

export type SkillScope = "global" | "channel";

export interface SkillEntry {
  /** The directory's name (a valid skill's name is the same). */
  name: string;
  scope: SkillScope;
  path: string;
  skill?: Skill;
  problem?: string;
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

export class SkillLibrary {
  private readonly cache = new Map<string, { mtimeMs: number; size: number; parse: SkillParse }>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly layout: WorkspaceLayout,
    private readonly logger: Logger,
  ) {}

  /** Every skill directory of the workspace and of the channel, valid or not, by scope then name. */
  entries(channel: Channel): SkillEntry[] {
    return [
      ...this.scan(this.layout.skillsDir, "global"),
      ...this.scan(this.layout.channelSkills(channel), "channel"),
    ];
  }

  /** The skills the channel can use: a channel skill hides a global one of the same name. */
  available(channel: Channel): Array<Skill & { scope: SkillScope }> {
    const byName = new Map<string, Skill & { scope: SkillScope }>();
    for (const entry of this.entries(channel))
      if (entry.skill) byName.set(entry.name, { ...entry.skill, scope: entry.scope });
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The entry `name` stands for in the channel: its own first, else the global one. */
  find(name: string, channel: Channel): SkillEntry | undefined {
    const matches = this.entries(channel).filter((entry) => entry.name === name);
    return (
      matches.find((e) => e.scope === "channel" && e.skill) ?? matches.find((e) => e.skill) ?? matches[0]
    );
  }

  private scan(dir: string, scope: SkillScope): SkillEntry[] {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return []; // no skills directory yet
    }
    return names
      .filter((name) => !name.startsWith(".") && isDirectory(join(dir, name)))
      .map((name) => {
        const path = join(dir, name, SKILL_FILE);
        const parse = this.read(join(dir, name), name, path);
        if (parse.ok) return { name, scope, path, skill: parse.skill };
        this.report(path, parse.problem);
        return { name, scope, path, problem: parse.problem };
      });
  }

  private read(dir: string, name: string, path: string): SkillParse {
    let stat: { mtimeMs: number; size: number };
    try {
      stat = statSync(path);
    } catch {
      return { ok: false, problem: `no ${SKILL_FILE} in the directory` };
    }
    const cached = this.cache.get(path);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.parse;
    const parse: SkillParse =
      stat.size > MAX_SKILL_BYTES
        ? { ok: false, problem: `${SKILL_FILE} is ${stat.size} bytes, over the ${MAX_SKILL_BYTES} limit` }
        : this.parseFile(dir, name, path);
    this.cache.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, parse });
    return parse;
  }

  private parseFile(dir: string, name: string, path: string): SkillParse {
    try {
      return parseSkill(dir, name, readFileSync(path, "utf8"));
    } catch (error) {
      return { ok: false, problem: `cannot read ${SKILL_FILE}: ${(error as Error).message}` };
    }
  }

  private report(path: string, problem: string): void {
    const key = `${path}\n${problem}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.logger.warn({ path, problem }, "skill not loaded");
  }
}
