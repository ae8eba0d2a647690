import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { LogEntry } from "../src/workspace/channel-log.ts";
import { chatAs, onCleanup, startHostWithModel } from "./support.ts";

// The chat's log.jsonl and context.jsonl through a real host: what users and the host said, in
// their line shapes; /new-context; the old per-user history taken over; and file_ops reading
// the workspace, where a chat the caller has not written in does not exist.

async function setup() {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const workspace = join(dir.path, "workspace");
  const work = join(dir.path, "work");
  mkdirSync(work);
  // An old host's history for u1, from before the workspace (per user, no chat).
  const legacyDir = join(dir.path, "host", "laptop", "history");
  mkdirSync(legacyDir, { recursive: true });
  writeFileSync(
    join(legacyDir, "u1.json"),
    JSON.stringify({
      version: 1,
      messages: [
        { role: "user", content: "my name is Ada" },
        { role: "assistant", content: "Hello Ada." },
      ],
    }),
  );
  const s = await startHostWithModel({ WORKSPACE_DIR: workspace, WORKING_DIR: work }, dir);
  const ask = chatAs(s.router, { user: "u1", chat: "c1", platform: "t" });
  const chatDir = (chat: string) => join(workspace, "channels", "t", chat);
  const log = (chat: string) =>
    readFileSync(join(chatDir(chat), "log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
  return { ...s, ask, workspace, work, legacyDir, chatDir, log };
}

const fileOps = (args: Record<string, unknown>) => ({ toolCalls: [{ name: "file_ops", arguments: args }] });

describe("the chat's log.jsonl", () => {
  it("records the user's message with its files and the host's answer, one line each", async () => {
    const s = await setup();
    s.model.script({ text: "Got the notes." });
    await s.ask("here are my notes", undefined, {
      message_id: "m-42",
      attachments: [{ name: "notes.txt", data_base64: Buffer.from("remember the milk").toString("base64") }],
    });
    // Written at the end of the turn that answered (a quiet host's log, jsonl-thread-writer.ts):
    // there soon after the reply.
    const [user, bot] = await waitFor(() => s.log("c1").length === 2 && s.log("c1"));
    expect(Object.keys(user)).toEqual(["id", "ts", "sender", "text", "attachments", "isMention"]);
    expect(LogEntry.parse(user)).toEqual({
      id: "m-42",
      ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      sender: { id: "u1", username: "u1", isBot: false },
      text: "here are my notes", // as sent: not the lines the host adds for the model
      attachments: [{ filename: "notes.txt", localPath: "attachments/notes.txt", size: 17 }],
      isMention: true,
    });
    expect(readFileSync(join(s.chatDir("c1"), "attachments", "notes.txt"), "utf8")).toBe("remember the milk");
    expect(LogEntry.parse(bot)).toMatchObject({
      id: "r1:reply",
      sender: { id: "laptop", username: "laptop", displayName: "laptop", isBot: true },
      text: "Got the notes.",
      attachments: [],
      isMention: false,
    });
    // The model was told where the file is, by its path in the chat's attachments/.
    expect(String(s.model.requests[0]?.messages.at(-1)?.content)).toContain(
      `[attached: ${join(s.chatDir("c1"), "attachments", "notes.txt")} (17 B)]`,
    );
  });

  it("records what the host sends on its own (a file sent by the assistant) as the bot's", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "report.csv"), "a,b\n1,2\n");
    s.model.script(fileOps({ action: "send", path: "report.csv" }), { text: "Sent." });
    await s.ask("send me the report");
    await waitFor(() => s.log("c1").length === 3);
    const entries = s.log("c1").map((entry) => LogEntry.parse(entry));
    expect(entries.map((e) => [e.sender.isBot, e.text, e.attachments.map((a) => a.filename)])).toEqual([
      [false, "send me the report", []],
      [true, "", ["report.csv"]],
      [true, "Sent.", []],
    ]);
  });
});

describe("the chat's context", () => {
  it("takes over the user's old history, continues it, and /new-context starts afresh while the files keep everything", async () => {
    const s = await setup();
    s.model.script({ text: "You are Ada." }, { text: "I don't know yet." });
    await s.ask("what is my name?");
    expect(s.model.requests[0]?.messages.slice(1).map((m) => m.content)).toEqual([
      "my name is Ada",
      "Hello Ada.",
      "what is my name?",
    ]);
    expect(readdirSync(s.legacyDir)).toEqual(["u1.json.bak"]);

    expect(await s.ask("/new-context")).toMatch(
      /^🆕 New context: the assistant no longer sees the 4 earlier messages/,
    );
    await s.ask("what is my name?");
    expect(s.model.requests[1]?.messages.slice(1).map((m) => m.content)).toEqual(["what is my name?"]);
    expect(await s.ask("/reset")).toMatch(/no longer sees the 2 earlier messages/);

    const context = readFileSync(join(s.chatDir("c1"), "context.jsonl"), "utf8");
    for (const said of ["my name is Ada", "You are Ada.", "I don't know yet."])
      expect(context).toContain(said);
    expect(s.log("c1").map((e) => e.text)).toContain("what is my name?");
    expect(s.log("c1").filter((e) => e.text === "what is my name?")).toHaveLength(2);
  });
});

describe("file_ops in the workspace", () => {
  it("reads this chat's log by absolute path; a chat the caller never wrote in does not exist for them", async () => {
    const s = await setup();
    s.model.script({ text: "ok" }, { text: "ok" });
    await s.ask("the launch code is 0000", { user: "u2", chat: "private-u2" });
    await s.ask("hello from the group", { user: "u1", chat: "group" });

    const ownLog = join(s.chatDir("group"), "log.jsonl");
    const otherLog = join(s.chatDir("private-u2"), "log.jsonl");
    s.model.script(
      fileOps({ action: "read", path: ownLog }),
      fileOps({ action: "read", path: otherLog }),
      fileOps({ action: "list", path: join(s.workspace, "channels"), depth: 3 }),
      fileOps({ action: "search", path: s.workspace, query: "launch code" }),
      { text: "done" },
    );
    await s.ask("look back", { user: "u1", chat: "group" });
    const [own, other, listing, search] = s.model.toolResults();
    expect(own).toContain("hello from the group");
    expect(other).toContain(`no such file or directory: ${otherLog}`);
    expect(listing).toContain("group");
    expect(listing).not.toContain("private-u2");
    expect(search).not.toContain("0000");
    // Outside both the working directory and the workspace: refused as before.
    s.model.script(fileOps({ action: "read", path: join(s.legacyDir, "u1.json.bak") }), { text: "no" });
    await s.ask("peek", { user: "u1", chat: "group" });
    expect(s.model.toolResults().at(-1)).toMatch(/is outside the working directory/);
  });

  it("a user who wrote in a chat may read it from their own chat too", async () => {
    const s = await setup();
    s.model.script({ text: "ok" }, { text: "ok" });
    await s.ask("team notes: deploy on friday", { user: "u2", chat: "team" });
    await s.ask("hi", { user: "u2", chat: "dm-u2" });
    s.model.script(fileOps({ action: "read", path: join(s.chatDir("team"), "log.jsonl") }), { text: "done" });
    await s.ask("what did the team say?", { user: "u2", chat: "dm-u2" });
    expect(s.model.toolResults()[0]).toContain("deploy on friday");
  });
});
