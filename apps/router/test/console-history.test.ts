import { waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { ConsoleMessage } from "../src/console/console-frames.ts";
import { consoleLinkFor, fakeAssets } from "./console-support.ts";
import { onCleanup, startTestRouter, tempDataDir } from "./support.ts";

// The console chat's history over a real restart: a router on a DATA_DIR is closed and another
// started on it; a page opened then gets the same messages in its hello, and only its user's.

interface PageFrame {
  type: string;
  messages?: ConsoleMessage[];
  message?: ConsoleMessage;
}

async function start(dataDir: string) {
  const t = await startTestRouter({ DATA_DIR: dataDir }, { consoleAssets: fakeAssets() });
  const host = new URL(t.url).host;
  /** A signed-in page of `user`, as a plain WebSocket keeping every frame; resolves on its hello. */
  const openPage = async (user: string) => {
    const code = new URL(await consoleLinkFor(t.chat, user)).searchParams.get("code") ?? "";
    const signedIn = await t.router.app.inject({
      method: "POST",
      url: "/console/login",
      headers: { host, "content-type": "application/x-www-form-urlencoded" },
      payload: `code=${code}`,
    });
    const cookie = String(signedIn.headers["set-cookie"]).split(";")[0] ?? "";
    const socket = new WebSocket(`${t.url.replace(/^http/, "ws")}/console/ws`, {
      headers: { cookie, origin: t.url },
    });
    onCleanup(() => socket.terminate());
    const frames: PageFrame[] = [];
    socket.on("message", (data) => frames.push(JSON.parse(String(data)) as PageFrame));
    const hello = await waitFor(() => frames.find((frame) => frame.type === "hello"), {
      message: `${user}'s hello`,
    });
    /** Says `text` and waits for the router's answer to it. */
    const say = async (text: string) => {
      const before = frames.length;
      socket.send(JSON.stringify({ type: "chat", text }));
      await waitFor(
        () => frames.slice(before).find((frame) => frame.type === "message" && !frame.message?.mine),
        {
          message: `an answer to ${user}`,
        },
      );
    };
    return { socket, hello: hello.messages ?? [], say };
  };
  return { ...t, openPage };
}

describe("console chat history", () => {
  it("survives a router restart, and each user gets only their own", async () => {
    const dataDir = tempDataDir();
    const first = await start(dataDir);
    const alice = await first.openPage("alice");
    const bob = await first.openPage("bob");
    expect([alice.hello, bob.hello]).toEqual([[], []]);
    await alice.say("alice's first");
    await bob.say("bob's secret");
    await alice.say("alice's second");
    const aliceBefore = (await first.openPage("alice")).hello;
    const bobBefore = (await first.openPage("bob")).hello;
    expect(aliceBefore.filter((message) => message.mine).map((message) => message.text)).toEqual([
      "alice's first",
      "alice's second",
    ]);
    expect(aliceBefore.length).toBeGreaterThanOrEqual(4); // each with the router's answer
    await first.router.close({ drainMs: 0 });

    const second = await start(dataDir);
    const aliceAfter = (await second.openPage("alice")).hello;
    const bobAfter = (await second.openPage("bob")).hello;
    expect(aliceAfter).toEqual(aliceBefore);
    expect(bobAfter).toEqual(bobBefore);
    expect(JSON.stringify(aliceAfter)).not.toContain("bob's secret");
    expect(JSON.stringify(bobAfter)).not.toContain("alice's");
    // A user who never chatted gets nothing, not somebody else's.
    expect((await second.openPage("carol")).hello).toEqual([]);
  });
});
