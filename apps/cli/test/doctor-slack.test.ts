import { startFakeSlack } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { runDoctorIn, scope } from "./doctor-support.ts";

// `phonework doctor router` with Slack: auth.test through the router's own Web API client, against
// the fake workspace (SLACK_API_URL). No token is ever printed.

describe("doctor router: Slack", () => {
  it("a bot token Slack accepts is ✅ naming the workspace; a wrong one is ❌ with Slack's code", async () => {
    const slack = await startFakeSlack();
    scope.add(() => slack.close());
    const env = {
      DATA_DIR: scope.tempDir(),
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: "0",
      CHAT: "auto",
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      ALLOWED_USERS: "U0ANN",
    };
    const good = await runDoctorIn("router", { ...env, SLACK_BOT_TOKEN: slack.botToken });
    expect(good.line("chat")).toBe("✅ chat: slack (slack, socket)");
    expect(good.line("Slack")).toBe(
      `✅ Slack: ${slack.apiUrl} accepts the bot token (Fake Workspace, bot phonework)`,
    );
    expect(good.output).not.toContain(slack.botToken);

    const wrongToken = "xoxb-1000000001-2000000002-wrongwrongwrong";
    const wrong = await runDoctorIn("router", { ...env, SLACK_BOT_TOKEN: wrongToken });
    expect(wrong.line("Slack")).toBe(
      `❌ Slack: ${slack.apiUrl} refuses the bot token (invalid_auth) → copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page again`,
    );
    expect(wrong.output).not.toContain(wrongToken);
  });
});
