import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Attachment } from "@phonework/protocol";
import { createTestLogger, makeTempDir, startFakeRouter } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { MessageHandler } from "../src/contracts/message-handler.ts";
import { numberedName, safeBaseName } from "../src/workspace/attachment-name.ts";
import { createInbox, decodeBase64 } from "../src/workspace/inbox.ts";
import { onCleanup, startHost } from "./support.ts";

// Files that come with a chat message land in the chat's attachments/ directory in the workspace
// under a safe, new name, and the message the model sees says where. The sender picks the names
// and the bytes: both attack.

const b64 = (text: string) => Buffer.from(text).toString("base64");
const file = (name: string, text = "hello"): Attachment => ({ name, data_base64: b64(text) });

/** A scratch root holding the attachments directory, so anything written beside it would show up. */
function workspace() {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const workingDir = join(dir.path, "work");
  mkdirSync(workingDir);
  const inboxDir = join(workingDir, "inbox");
  const created = (maxBytes = 1024) => createInbox({ maxBytes, logger: createTestLogger().logger });
  const inbox = (maxBytes = 1024) => ({
    save: (attachments: Attachment[]) => created(maxBytes).save(attachments, inboxDir),
  });
  /** Every path under the scratch root, relative to it. */
  const everything = (): string[] =>
    (readdirSync(dir.path, { recursive: true }) as string[]).map(String).sort();
  return { root: dir.path, workingDir, inboxDir, inbox, everything };
}

describe("attachment names", () => {
  it.each([
    ["../../etc/passwd", "passwd"],
    ["/abs/path", "path"],
    ["..\\..\\windows\\system.ini", "system.ini"],
    ["..", "attachment"],
    [".", "attachment"],
    ["...", "attachment"],
    ["dir/..", "attachment"],
    [".bashrc", "bashrc"],
    ["..hidden.txt", "hidden.txt"],
    ["evil\0name.txt", "evilname.txt"],
    ["line\nbreak\r.txt", "linebreak.txt"],
    ["bidi\u202Etxt.exe", "biditxt.exe"],
    ["  spaced.txt  ", "spaced.txt"],
    ["\0\n\t", "attachment"],
    ["", "attachment"],
    ["q3-report.pdf", "q3-report.pdf"],
    ["报告.pdf", "报告.pdf"],
  ])("%j → %j", (name, safe) => {
    expect(safeBaseName(name)).toBe(safe);
  });

  it("a long name is cut to a safe length and keeps its extension; characters are not split", () => {
    const long = safeBaseName(`${"a".repeat(300)}.pdf`);
    expect(long).toMatch(/^a+\.pdf$/);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(120);
    const wide = safeBaseName(`${"报".repeat(300)}.txt`);
    expect(wide).toMatch(/^报+\.txt$/);
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(120);
    expect(safeBaseName("x".repeat(300))).toBe("x".repeat(120));
  });

  it("numbered names go before the extension", () => {
    expect(numberedName("report.pdf", 0)).toBe("report.pdf");
    expect(numberedName("report.pdf", 2)).toBe("report-2.pdf");
    expect(numberedName("Makefile", 1)).toBe("Makefile-1");
  });
});

describe("base64", () => {
  it("accepts padded, unpadded and line-wrapped base64 and refuses anything else", () => {
    expect(decodeBase64(b64("hello"))?.toString()).toBe("hello");
    expect(decodeBase64("aGVsbG8")?.toString()).toBe("hello");
    expect(decodeBase64("aGVs\nbG8=")?.toString()).toBe("hello");
    expect(decodeBase64("")?.length).toBe(0);
    for (const bad of ["not base64!", "aGVsbG8=x", "a", "aGVsbG8-", "aGV=sbG8", "aGVsbG=", "%%%%"])
      expect(decodeBase64(bad), bad).toBeUndefined();
  });
});

describe("the inbox", () => {
  it("saves hostile names inside inbox/ only, owner-only, and writes nothing anywhere else", async () => {
    const w = workspace();
    const result = await w
      .inbox()
      .save([
        file("../../etc/passwd"),
        file("/abs/path"),
        file(".."),
        file(".bashrc"),
        file("nul\0and\nnewline.txt"),
        file(`${"n".repeat(300)}.txt`),
      ]);
    expect(result.skipped).toEqual([]);
    expect(result.saved.map((f) => f.name)).toEqual([
      "passwd",
      "path",
      "attachment",
      "bashrc",
      "nulandnewline.txt",
      `${"n".repeat(116)}.txt`,
    ]);
    for (const saved of result.saved) {
      expect(saved.path).toBe(join(w.inboxDir, saved.name));
      expect(readFileSync(saved.path, "utf8")).toBe("hello");
      expect(statSync(saved.path).mode & 0o777).toBe(0o600);
    }
    expect(statSync(w.inboxDir).mode & 0o777).toBe(0o700);
    expect(w.everything()).toEqual(
      ["work", "work/inbox", ...result.saved.map((f) => `work/inbox/${f.name}`).sort()].sort(),
    );
  });

  it("never overwrites: the same name twice, and a file already there, get numbered names", async () => {
    const w = workspace();
    mkdirSync(w.inboxDir);
    writeFileSync(join(w.inboxDir, "notes.txt"), "mine");
    const result = await w.inbox().save([file("notes.txt", "one"), file("notes.txt", "two")]);
    expect(result.saved.map((f) => f.name)).toEqual(["notes-1.txt", "notes-2.txt"]);
    expect(readFileSync(join(w.inboxDir, "notes.txt"), "utf8")).toBe("mine");
    expect(readFileSync(join(w.inboxDir, "notes-1.txt"), "utf8")).toBe("one");
    expect(readFileSync(join(w.inboxDir, "notes-2.txt"), "utf8")).toBe("two");
  });

  it("a symlink already at the name is not followed; an inbox that is a symlink is not used", async () => {
    const w = workspace();
    mkdirSync(w.inboxDir);
    symlinkSync(join(w.root, "target.txt"), join(w.inboxDir, "report.txt"));
    const first = await w.inbox().save([file("report.txt", "data")]);
    expect(first.saved.map((f) => f.name)).toEqual(["report-1.txt"]);
    expect(w.everything()).not.toContain("target.txt");

    const other = workspace();
    mkdirSync(join(other.root, "elsewhere"));
    symlinkSync(join(other.root, "elsewhere"), other.inboxDir);
    const refused = await other.inbox().save([file("a.txt")]);
    expect(refused.saved).toEqual([]);
    expect(refused.skipped).toEqual([{ name: "a.txt", reason: `${other.inboxDir} is not a folder` }]);
    expect(readdirSync(join(other.root, "elsewhere"))).toEqual([]);
    expect(lstatSync(other.inboxDir).isSymbolicLink()).toBe(true);
  });

  it("skips bad base64 and what is over the cap, and keeps the rest", async () => {
    const w = workspace();
    const result = await w
      .inbox(10)
      .save([
        { name: "bad.bin", data_base64: "!!not base64!!" },
        file("six.txt", "123456"),
        file("five.txt", "12345"),
        file("four.txt", "1234"),
        { name: "../x\nhuge.bin", data_base64: Buffer.alloc(2048).toString("base64") },
      ]);
    expect(result.saved.map((f) => [f.name, f.bytes])).toEqual([
      ["six.txt", 6],
      ["four.txt", 4],
    ]);
    expect(result.skipped).toEqual([
      { name: "bad.bin", reason: "it is not valid base64" },
      { name: "five.txt", reason: "5 B is over the 10 B limit for one message's files" },
      { name: "xhuge.bin", reason: "2.0 KB is over the 10 B limit for one message's files" },
    ]);
    expect(readdirSync(w.inboxDir).sort()).toEqual(["four.txt", "six.txt"]);
  });
});

describe("a forward with attachments, through a real host", () => {
  it("files land in the chat's attachments/; the handler sees a line per saved and skipped file; the user is told", async () => {
    const router = await startFakeRouter({ secret: "inbox-secret" });
    onCleanup(() => router.close());
    const seen: string[] = [];
    const handler: MessageHandler = {
      handle: async (request) => {
        seen.push(request.text);
        return "ok";
      },
    };
    const host = startHost(router.url, "inbox-secret", { MAX_ATTACHMENT_BYTES: 1024 }, { handler });
    await host.ready();
    const dataDir = String(router.registrations[0]?.working_dir); // DATA_DIR too
    const attachments = join(dataDir, "host", "laptop", "workspace", "channels", "t", "c1", "attachments");
    router.latest().send({
      type: "forward",
      id: "r1",
      user_id: "u1",
      chat_id: "c1",
      platform: "t",
      text: "what is in these?",
      attachments: [
        {
          name: "q3-report.pdf",
          mime_type: "application/pdf",
          data_base64: Buffer.alloc(600).toString("base64"),
        },
        { name: "../../etc/passwd", data_base64: b64("root:x:0:0") },
        { name: "big.bin", data_base64: Buffer.alloc(1000).toString("base64") },
        { name: "bad.bin", data_base64: "@@@" },
      ],
    });
    const answer = await router.latest().inbox.next("forward_response", (f) => f.id === "r1");
    expect(answer.text).toBe("ok");
    expect(seen).toEqual([
      [
        "what is in these?",
        `[attached: ${join(attachments, "q3-report.pdf")} (600 B)]`,
        `[attached: ${join(attachments, "passwd")} (10 B)]`,
        '[attachment "big.bin" not saved: 1000 B is over the 1.0 KB limit for one message\'s files]',
        '[attachment "bad.bin" not saved: it is not valid base64]',
      ].join("\n"),
    ]);
    const progress = router
      .latest()
      .inbox.ofType("progress")
      .map((f) => f.text);
    expect(progress).toEqual([
      "⚠️ big.bin was not saved: 1000 B is over the 1.0 KB limit for one message's files",
      "⚠️ bad.bin was not saved: it is not valid base64",
    ]);
    expect(readdirSync(attachments).sort()).toEqual(["passwd", "q3-report.pdf"]);
    expect(readdirSync(dataDir)).not.toContain("inbox");
  });
});
