import { startFakeSlack } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { scope, startHost, startRouter } from "./support.ts";

// Slack through the installed router: its bundled @slack/socket-mode and @slack/web-api against the
// fake workspace (SLACK_API_URL), in Socket Mode, a command answered by an installed host.

describe("Slack, installed", () => {
  it("Socket Mode: a DM's /shell command is answered once in the DM, its envelope acknowledged", async () => {
    const fake = await startFakeSlack();
    scope.add(() => fake.close());
    const ann = fake.user({ name: "ann" });
    const router = await startRouter({
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: fake.appToken,
      SLACK_API_URL: fake.apiUrl,
      ALLOWED_USERS: `slack:${ann.id}`,
    });
    await startHost(router, "box", { SERVES_USERS: `slack:${ann.id}` });
    const sent = fake.sendMessage({ user: ann.id, text: "/shell echo slack-$((6*7))" });
    const answer = await fake.waitForBot(fake.dm(ann), /slack-42/, 30_000);
    expect(answer.text).toContain("```\nslack-42\n```");
    expect(fake.isAcked(sent.envelopeId)).toBe(true);
    expect(fake.botMessages(fake.dm(ann)).filter((m) => /slack-42/.test(m.text))).toHaveLength(1);
  });
});
