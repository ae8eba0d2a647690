import { SecretValues } from "@phonework/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness } from "./chat-harness.ts";

// Codes the standalone mints while it runs (a join code, a console link) go to the log's secret
// values as they are made, as the router's do: from then on no log line can carry them.

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe("secrets minted at run time", () => {
  it("a join code from /pair is redacted from the standalone's log by value", async () => {
    const secrets = new SecretValues();
    const harness = await startHarness({ ADMINS: "me" }, process.env, "me", undefined, secrets);
    stop = () => harness.stop();
    const answer = await harness.ask("/pair laptop2", (text) => text.includes("Join code"));
    const code = /phonework host --join (\S+)/.exec(answer)?.[1] ?? "";
    expect(code).toMatch(/^laptop2:/);
    expect(secrets.redact(`someone logged ${code} by mistake`)).not.toContain(code);
  });
});
