import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { createTestLogger, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { createRouter } from "../src/create-router.ts";
import type { ChannelMessage } from "../src/platforms/platform-adapter.ts";
import { quote } from "../src/platforms/stdin/answer-order.ts";
import { createTerminalAdapter } from "../src/platforms/stdin/stdin-adapter.ts";
import { ADMIN_TOKEN, onCleanup, SECRET, startTestHost, tempDataDir } from "./support.ts";

// The terminal has no replies: an answer that comes out of the order the messages were typed in
// starts with a short quote of the message it answers; answers in order are printed as they are.

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const adapter = createTerminalAdapter({ input, output, filesDir: tempDataDir() });
  return { adapter, input, printed: () => printed };
}

describe("terminal quotes", () => {
  it("quotes the start of the message on one line", () => {
    expect(quote("/shell echo 3")).toBe("» /shell echo 3: ");
    expect(quote(`explain\n  this   ${"x".repeat(60)}`)).toBe(`» explain this ${"x".repeat(27)}…: `);
  });

  it("quotes an answer that overtakes an earlier one, and the one overtaken; not answers in order", async () => {
    const t = terminal();
    const received: ChannelMessage[] = [];
    await t.adapter.start({
      message: async (message) => {
        received.push(message);
      },
      button: async () => "",
    });
    t.input.write("first\nsecond\nthird\nfourth\n");
    await waitFor(() => received.length === 4);
    const [first, second, third, fourth] = received;
    const to = { userId: "local" };
    const answer = (text: string, replyTo: string | undefined) =>
      t.adapter.send(to, text, { idempotencyKey: text, ...(replyTo ? { replyTo } : {}) });
    await answer("answer 1", first?.id);
    await answer("… progress", undefined);
    await answer("answer 3", third?.id);
    await answer("a notice", undefined);
    await answer("answer 2", second?.id);
    await answer("answer 4", fourth?.id);
    expect(t.printed()).toBe(
      "answer 1\n… progress\n» third: answer 3\na notice\n» second: answer 2\nanswer 4\n",
    );
  });

  it("over a real router and host: in-order answers are bare, a router answer overtaking a slow /shell is quoted", async () => {
    const t = terminal();
    const config = RouterConfigSchema.parse({
      ROUTER_SECRET: SECRET,
      ADMIN_TOKEN,
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: 0,
      DATA_DIR: tempDataDir(),
      PROGRESS_INTERVAL_S: 0,
    });
    const router = createRouter(config, { logger: createTestLogger().logger, chat: [t.adapter] });
    await router.start();
    onCleanup(() => router.close({ drainMs: 0 }));
    const workingDir = tempDataDir();
    await startTestHost(router.nodeUrl, { WORKING_DIR: workingDir }).ready();

    t.input.write("/shell echo one\n/shell echo two\n");
    await waitFor(() => t.printed().includes("two\n"));
    expect(t.printed()).toBe(
      "$ echo one\nexit code 0\nstdout:\n```\none\n```\n$ echo two\nexit code 0\nstdout:\n```\ntwo\n```\n",
    );

    const before = t.printed().length;
    t.input.write("/shell while [ ! -f gate ]; do sleep 0.05; done; echo opened\n/nodes\n");
    await waitFor(() => t.printed().includes("Online:"));
    writeFileSync(join(workingDir, "gate"), "");
    await waitFor(() => t.printed().includes("opened\n"));
    const lines = t.printed().slice(before).split("\n");
    expect(lines[0]).toBe("» /nodes: Online:");
    expect(lines.find((line) => line.startsWith("» /shell"))).toBe(
      "» /shell while [ ! -f gate ]; do sleep 0.0…: $ while [ ! -f gate ]; do sleep 0.05; done; echo opened",
    );
  });
});
