import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { createTestLogger, makeTempDir, waitFor } from "@phonework/testkit";
import { describe, expect, it, vi } from "vitest";
import { ButtonStore } from "../src/chat/button-store.ts";
import { ChatHub } from "../src/chat/chat-hub.ts";
import { ProgressMessage } from "../src/forwarding/progress-message.ts";
import type { ChannelMessage } from "../src/platforms/platform-adapter.ts";
import { createTerminalAdapter } from "../src/platforms/stdin/stdin-adapter.ts";

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
    const received: ChannelMessage[] = [];
    await t.adapter.start({
      message: async (m) => {
        received.push(m);
      },
      button: async () => "",
    });
    t.input.end("hello\n\n  /nodes  \n");
    await waitFor(() => t.ended());
    expect(t.adapter.name).toBe("terminal");
    expect(received.map((m) => [m.sender.id, m.text, m.channel])).toEqual([
      ["local", "hello", { id: "terminal", type: "private" }],
      ["local", "/nodes", { id: "terminal", type: "private" }],
    ]);
  });

  it("cannot edit: progress lines are printed once each, as new messages, then the answer", async () => {
    vi.useFakeTimers();
    try {
      const t = terminal();
      expect(t.adapter.capabilities.canEdit).toBe(false);
      const sends: string[] = [];
      const send = t.adapter.send.bind(t.adapter);
      t.adapter.send = (to, text, options) => {
        sends.push(text);
        return send(to, text, options);
      };
      const hub = new ChatHub([t.adapter], {
        logger: createTestLogger().logger,
        buttons: ButtonStore.inMemory(60_000, () => Date.now()),
        retry: { attempts: 1, baseMs: 0, maxMs: 0, maxRetryAfterMs: 0 },
      });
      const to = { platform: "terminal", userId: "terminal:local" };
      const progress = new ProgressMessage(hub, to, 1000, () => Date.now());
      progress.add("step 1");
      await vi.advanceTimersByTimeAsync(0);
      progress.add("step 2");
      await vi.advanceTimersByTimeAsync(1000);
      await progress.conclude({ ok: true, text: "done" }, "send", {});
      expect(sends).toEqual(["… step 1", "… step 2", "done"]);
      expect(t.printed()).toBe("… step 1\n… step 2\ndone\n");
    } finally {
      vi.useRealTimers();
    }
  });

  it("saves a sent file under the files dir and prints its path", async () => {
    const t = terminal();
    await t.adapter.sendFile(
      { userId: "local" },
      { name: "../../etc/report.txt", data: Buffer.from("hi") },
      { idempotencyKey: "k1" },
    );
    const path = /saved to (\S+)/.exec(t.printed())?.[1] ?? "";
    expect(path.startsWith(t.dir.path)).toBe(true);
    expect(path.endsWith("-report.txt")).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("hi");
    t.dir.remove();
  });
});
