import { waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { startAdapter, startFake } from "./discord-support.ts";

describe("Discord adapter on the fake", () => {
  it("a DM arrives once and is answered", async () => {
    const fake = await startFake();
    const { adapter, events } = await startAdapter(fake);
    const alice = fake.user({ username: "alice" });
    const sent = fake.sendMessage({ from: alice, content: "hello" });
    const [message] = await events.messageCount(1);
    expect(message).toMatchObject({ id: sent.id, text: "hello", channel: { type: "private" }, sender: { id: alice.id } });
    await adapter.send({ chatId: sent.channel_id, userId: alice.id }, "hi **there**", { idempotencyKey: "k1", replyTo: sent.id });
    expect(fake.renderTranscript(sent.channel_id)).toBe("alice: hello\nbot (reply): hi **there**");
    await waitFor(() => fake.gateway().connected);
  });
});
