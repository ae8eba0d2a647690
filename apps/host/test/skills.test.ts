import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ChatRequest, createTestLogger, makeTempDir } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { startHostWithModel } from "./support.ts";

// Skills in the workspace, through a real host: listed in the system prompt, loaded by the
// `skill` tool, and bad ones reported (in /skills and once in the log) without hiding the rest.

function writeSkill(skillsDir: string, dir: string, text: string): void {
  mkdirSync(join(skillsDir, dir), { recursive: true });
  writeFileSync(join(skillsDir, dir, "SKILL.md"), text);
}

const skill = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

async function setup() {
  const dir = makeTempDir();
  const workspace = join(dir.path, "workspace");
  const globalSkills = join(workspace, "skills");
  const chatSkills = join(workspace, "channels", "t", "c1", "skills");
  writeSkill(
    globalSkills,
    "deploy",
    skill("deploy", "Deploy the app to staging", "Run ./deploy.sh staging, then check /health."),
  );
  writeSkill(globalSkills, "style", skill("style", "How to write commit messages", "GLOBAL STYLE BODY"));
  writeSkill(chatSkills, "style", skill("style", "This team's commit style", "CHANNEL STYLE BODY"));
  writeSkill(chatSkills, "oncall", skill("oncall", "Who is on call this week", "Alice until Friday."));
  writeSkill(globalSkills, "no-description", "---\nname: no-description\n---\nbody\n");
  writeSkill(globalSkills, "bad-yaml", "---\nname: bad-yaml\ndescription: [unclosed\n---\nbody\n");
  writeSkill(globalSkills, "renamed", skill("other-name", "Mismatched", "body"));
  writeSkill(globalSkills, "huge", skill("huge", "Too big", "x".repeat(70 * 1024)));

  const log = createTestLogger();
  const { router, model } = await startHostWithModel({ WORKSPACE_DIR: workspace }, dir, {
    logger: log.logger,
  });
  let next = 0;
  const ask = async (text: string, chat = "c1") => {
    const id = `r${++next}`;
    router.latest().send({ type: "forward", id, user_id: "u1", chat_id: chat, platform: "t", text });
    const answer = await router.latest().inbox.next("forward_response", (f) => f.id === id, 15_000);
    return String(answer.text);
  };
  return { model, ask, log, globalSkills };
}

const systemPrompt = (request: ChatRequest | undefined) => String(request?.messages[0]?.content);

describe("skills", () => {
  it("are listed in the system prompt (global and the chat's) and loaded by the skill tool", async () => {
    const s = await setup();
    s.model.script(
      { toolCalls: [{ name: "skill", arguments: { name: "deploy" } }] },
      { toolCalls: [{ name: "skill", arguments: { name: "style" } }] },
      (request) => ({ text: `loaded:\n${s.model.toolResults(request).join("\n---\n")}` }),
    );
    const reply = await s.ask("deploy the app");

    const prompt = systemPrompt(s.model.requests[0]);
    expect(prompt).toContain("- deploy: Deploy the app to staging");
    expect(prompt).toContain("- oncall: Who is on call this week (this chat's)");
    // The chat's skill of the same name hides the global one.
    expect(prompt).toContain("- style: This team's commit style (this chat's)");
    expect(prompt).not.toContain("How to write commit messages");
    for (const broken of ["no-description", "bad-yaml", "renamed", "other-name", "huge"])
      expect(prompt).not.toContain(`- ${broken}:`);
    expect(s.model.toolNames(s.model.requests[0])).toContain("skill");

    const [deploy, style] = s.model.toolResults(s.model.requests[2]);
    expect(deploy).toContain("Run ./deploy.sh staging, then check /health.");
    expect(deploy).toContain(join(s.globalSkills, "deploy"));
    expect(deploy).not.toContain("description:"); // the body, without its front matter
    expect(style).toContain("CHANNEL STYLE BODY");
    expect(reply).toContain("Run ./deploy.sh staging");

    // Another chat sees the global skills only.
    await s.ask("hello", "c2");
    const other = systemPrompt(s.model.requests.at(-1));
    expect(other).toContain("- style: How to write commit messages");
    expect(other).not.toContain("oncall");
  });

  it("a skill added or edited while the host runs shows at the next turn; an unknown name is an error result", async () => {
    const s = await setup();
    await s.ask("first");
    expect(systemPrompt(s.model.requests.at(-1))).not.toContain("- backup:");
    writeSkill(s.globalSkills, "backup", skill("backup", "Back up the database", "pg_dump v1"));
    writeSkill(
      s.globalSkills,
      "deploy",
      skill("deploy", "Deploy to production now", "v2 body, longer than before"),
    );
    s.model.script({ toolCalls: [{ name: "skill", arguments: { name: "nope" } }] }, (request) => ({
      text: s.model.toolResults(request).at(-1) ?? "",
    }));
    const reply = await s.ask("second");
    const prompt = systemPrompt(s.model.requests.at(-2));
    expect(prompt).toContain("- backup: Back up the database");
    expect(prompt).toContain("- deploy: Deploy to production now");
    expect(reply).toMatch(
      /^Error: there is no skill named "nope"; skills here: backup, deploy, oncall, style$/,
    );
  });

  it("a skill name is looked up among the listed skills, never used as a path", async () => {
    const s = await setup();
    // A file that a path-built lookup of ".." would find: workspace/SKILL.md.
    writeFileSync(
      join(s.globalSkills, "..", "SKILL.md"),
      skill("..", "not a skill", "TOP SECRET WORKSPACE FILE"),
    );
    const names = ["..", "../skills/deploy", "deploy/../..", "/etc/passwd", "deploy\u0000", "DEPLOY"];
    s.model.script(
      ...names.map((name) => ({ toolCalls: [{ name: "skill", arguments: { name } }] })),
      (request) => ({ text: s.model.toolResults(request).join("\n---\n") }),
    );
    const reply = await s.ask("load them all");
    expect(reply).not.toContain("TOP SECRET");
    expect(reply.split("\n---\n").map((result) => result.replace(/;.*$/s, ""))).toEqual(
      names.map((name) => `Error: there is no skill named "${name}"`),
    );
  });

  it("bad front matter is reported in /skills and once in the log; the other skills are still listed", async () => {
    const s = await setup();
    await s.ask("a turn reads the skills");
    const listing = await s.ask("/skills");
    expect(listing).toContain("• deploy — Deploy the app to staging");
    expect(listing).toContain("• oncall (this chat) — Who is on call this week");
    expect(listing).toMatch(
      /⚠️ no-description — bad front matter: description: is missing \(.*no-description\/SKILL\.md\)/,
    );
    expect(listing).toContain("⚠️ bad-yaml — front matter is not valid YAML");
    expect(listing).toContain('⚠️ renamed — name "other-name" does not match its directory "renamed"');
    expect(listing).toMatch(/⚠️ huge — SKILL\.md is \d+ bytes, over the 65536 limit/);
    expect(listing).toMatch(/^Skills: 4 loaded, 4 not loaded$/m); // style counts once per scope

    await s.ask("/skills");
    const warnings = s.log.lines().filter((line) => line.msg === "skill not loaded");
    expect(warnings.map((w) => String(w.path).split("/").at(-2)).sort()).toEqual([
      "bad-yaml",
      "huge",
      "no-description",
      "renamed",
    ]);
  });
});
