import { describe, expect, it } from "vitest";
import { telegramWorld } from "./support.ts";

// /term on the installed host: a real PTY from the installed @lydell/node-pty (its prebuilt
// binary), the screen drawn by the bundled @xterm/headless, driven from a Telegram chat.

describe("/term, installed", () => {
  it("runs a program on a PTY that asks for a line, types into it, and shows how it ended", async () => {
    const { chat } = await telegramWorld();
    // A PTY, not a pipe: the program sees a terminal.
    const first = await chat.say(
      `/term sh -c 'test -t 0 && printf "tty name? "; read n; echo "hello $n"'`,
      /tty name\?/,
    );
    expect(first.text).toContain("running");
    const last = await chat.say("/keys alice<Enter>", /exited with code 0/);
    expect(last.text).toContain("hello alice");
  });
});
