import { startFakeDiscord } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { scope, startHost, startRouter } from "./support.ts";

// Discord through the installed router: its bundled @discordjs/ws and @discordjs/rest against the
// fake Discord (DISCORD_API_URL), a DM answered by an installed host.

describe("Discord, installed", () => {
  it("a DM reaches the installed host over the gateway and is answered once", async () => {
    const fake = await startFakeDiscord();
    scope.add(() => fake.close());
    const alice = fake.user({ username: "alice" });
    const router = await startRouter({
      DISCORD_BOT_TOKEN: fake.token,
      DISCORD_API_URL: fake.apiUrl,
      ALLOWED_USERS: `discord:${alice.id}`,
    });
    await startHost(router, "box", { SERVES_USERS: `discord:${alice.id}` });
    fake.sendMessage({ from: alice, content: "/shell echo installed-$((6*7))" });
    const dm = fake.dm(alice).id;
    const answer = await fake.waitForBot(dm, /installed-42/, 30_000);
    expect(answer.content).toContain("installed-42");
    expect(
      fake.transcript(dm).filter((m) => m.from === "bot" && /installed-42/.test(m.content)),
    ).toHaveLength(1);
    expect(fake.gateway().identifies).toBe(1);
  });
});
