import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { makeTempDir, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { IncomingMessage } from "../src/chat/chat-adapter.ts";
import { createTerminalAdapter } from "../src/chat/terminal-adapter.ts";

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString();
  });
  let ended = false;
  const dir = makeTempDir();
  const adapter = createTerminalAdapter({ input, output, filesDir: dir.path, onEnd: () => (ended = true) });
  return { adapter, input, printed: () => printed, ended: () => ended, dir };
}

describe("terminal adapter", () => {
  it("turns each non-empty line into a message from user local, and reports end of input", async () => {
    const t = terminal();
    const received: IncomingMessage[] = [];
    await t.adapter.start((m) => received.push(m));
    t.input.end("hello\n\n  /nodes  \n");
    await waitFor(() => t.ended());
    expect(received.map((m) => [m.userId, m.text, m.platform])).toEqual([
      ["local", "hello", "terminal"],
      ["local", "/nodes", "terminal"],
    ]);
  });

  it("prints replies, and only the new lines of an edited progress message", async () => {
    const t = terminal();
    const to = { platform: "terminal", userId: "local" };
    const { messageId } = await t.adapter.sendText(to, "… step 1");
    await t.adapter.editText(to, messageId, "… step 1\n… step 2");
    await t.adapter.sendText(to, "done");
    expect(t.printed()).toBe("… step 1\n… step 2\ndone\n");
  });

  it("saves a sent file under the files dir and prints its path", async () => {
    const t = terminal();
    await t.adapter.sendFile(
      { platform: "terminal", userId: "local" },
      { name: "../../etc/report.txt", data: Buffer.from("hi") },
    );
    const path = /saved to (\S+)/.exec(t.printed())?.[1] ?? "";
    expect(path.startsWith(t.dir.path)).toBe(true);
    expect(path.endsWith("-report.txt")).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("hi");
    t.dir.remove();
  });
});
