import { type FakeOpenAI, processRunning, startFakeOpenAI, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { memoryId, onCleanup, startTestHost, startTestRouter, tempDataDir } from "./support.ts";

/** The fence around command output (the host marks it preformatted). */
const FENCE = "```";

// Each user's messages are answered in the order they were sent, commands included, and each
// answer is a reply to the message it answers: router and real host over real sockets, with
// the host's own assistant (no handler replaced) and the in-memory chat.

async function startModel(): Promise<FakeOpenAI> {
  const model = await startFakeOpenAI({ apiKey: "sk-test" });
  onCleanup(() => model.close());
  return model;
}

/** The answers a user got (progress lines aside), with the message each one replies to. */
const answersTo = (chat: Awaited<ReturnType<typeof startTestRouter>>["chat"], userId: string) =>
  chat.sent
    .filter((m) => m.to.userId === userId && !m.text.startsWith("… ") && !m.thread)
    .map((m) => ({ text: m.text, replyTo: m.replyTo }));

describe("answer order and replies", () => {
  it("six /shell echo N sent at once are answered 1..6, each a reply to its own message", async () => {
    const { chat, nodeUrl } = await startTestRouter();
    await startTestHost(nodeUrl, { WORKING_DIR: tempDataDir() }).ready();
    const numbers = [1, 2, 3, 4, 5, 6];
    for (const n of numbers) chat.receive({ userId: "u1", text: `/shell echo ${n}`, id: `msg-${n}` });
    await waitFor(() => answersTo(chat, "u1").length === numbers.length, { message: "six answers" });
    expect(answersTo(chat, "u1")).toEqual(
      numbers.map((n) => ({
        text: `$ echo ${n}\nexit code 0\nstdout:\n${FENCE}\n${n}\n${FENCE}`,
        replyTo: `msg-${n}`,
      })),
    );
  });

  it("a quick /shell after a slow assistant turn is answered after it; another user is not held up", async () => {
    const model = await startModel();
    let release: () => void = () => {};
    const thinking = new Promise<void>((resolve) => {
      release = resolve;
    });
    model.script(async () => {
      await thinking;
      return { text: "the slow answer" };
    });
    const { chat, nodeUrl, router } = await startTestRouter();
    await startTestHost(nodeUrl, {
      WORKING_DIR: tempDataDir(),
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: model.url,
    }).ready();
    const waiting = () => router.registry.connection("home-pc")?.pending.size ?? 0;

    chat.receive({ userId: "alice", text: "think about it", id: "a-1" });
    chat.receive({ userId: "alice", text: "/shell echo quick", id: "a-2" });
    await waitFor(() => model.requests.length === 1 && waiting() === 2, {
      message: "the turn to run and the /shell to reach the host",
    });
    // Sent behind alice's two on the same socket: the host has both of hers when it gets this.
    chat.receive({ userId: "bob", text: "/shell echo not held up", id: "b-1" });
    await waitFor(() => answersTo(chat, "bob").length === 1, { message: "bob's answer" });
    expect(answersTo(chat, "bob")[0]?.replyTo).toBe("b-1");
    expect(answersTo(chat, "alice")).toEqual([]);

    release();
    await waitFor(() => answersTo(chat, "alice").length === 2, { message: "alice's answers" });
    expect(answersTo(chat, "alice")).toEqual([
      { text: "the slow answer", replyTo: "a-1" },
      { text: `$ echo quick\nexit code 0\nstdout:\n${FENCE}\nquick\n${FENCE}`, replyTo: "a-2" },
    ]);
  });

  it("router answers and errors are replies too; notices are not", async () => {
    const { chat, nodeUrl } = await startTestRouter({ REQUEST_TIMEOUT_S: 1 });
    const host = startTestHost(nodeUrl, { WORKING_DIR: tempDataDir() });
    await host.ready();
    chat.receive({ userId: "u1", text: "/nodes", id: "nodes-1" });
    // Not answered in time: the router's TIMEOUT is the answer, and its cancel kills the command.
    chat.receive({ userId: "u1", text: "/shell sleep 29.9792", id: "late-1" });
    await waitFor(() => answersTo(chat, "u1").some((a) => a.text.startsWith("⏱️")), { message: "TIMEOUT" });
    await waitFor(() => !processRunning("sleep 29.9792"), { message: "the sleep to be killed" });
    host.push({
      type: "notify",
      user_id: memoryId("u1"),
      platform: "memory",
      chat_id: memoryId("chat-u1"),
      text: "a notice",
    });
    await waitFor(() => chat.textsFor("u1").includes("a notice"));
    expect(answersTo(chat, "u1").map((a) => [a.text.split("\n")[0], a.replyTo])).toEqual([
      ["Online:", "nodes-1"],
      ['⏱️ Node "home-pc" did not answer in time (no answer within 1s). It may still be working.', "late-1"],
      ["a notice", undefined],
    ]);
  });
});
