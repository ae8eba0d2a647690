import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeTelegram, logged, phonework, scope, startRouter, telegramChat, telegramEnv } from "./support.ts";

// The README's pairing flow with the installed package: `phonework pair` beside a running
// `phonework router` (no shared secret), then `phonework host --join <code>` makes its key pair and
// registers its key; a restart needs no code.

describe("pairing, installed", () => {
  it("`phonework pair` prints a code; `phonework host --join <code>` pairs and answers; restarted, its key is enough", async () => {
    const fake = await fakeTelegram();
    const alice = fake.user({ first_name: "Alice", username: "alice" });
    const router = await startRouter({ ...telegramEnv(fake, alice), ROUTER_SECRET: "" });

    const pair = phonework(["pair", "home-pc"], {
      DATA_DIR: router.dataDir,
      ...telegramEnv(fake, alice),
      LOG_LEVEL: "warn",
    });
    expect(await pair.exited, pair.stderr()).toEqual({ code: 0, signal: null });
    const code = pair.stdout().trim().split("\n").at(-1) ?? "";
    expect(code).toMatch(/^home-pc:[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);

    const dataDir = scope.tempDir();
    const hostEnv = {
      ROUTER_URL: router.nodeUrl,
      DATA_DIR: dataDir,
      WORKING_DIR: dataDir,
      RECONNECT_MAX_DELAY_S: "0.3",
    };
    const host = phonework(["host", "--join", code], hostEnv);
    await logged(router.child, /"nodeId":"home-pc".*"msg":"node paired"/);
    await logged(host, /paired with the router/);
    expect(statSync(join(dataDir, "host", "identity.json")).mode & 0o777).toBe(0o600);
    const chat = telegramChat(fake, alice);
    await chat.say("/shell echo paired-and-working", /paired-and-working/);

    host.kill("SIGTERM");
    expect(await host.exited).toEqual({ code: 0, signal: null });
    const again = phonework(["host"], hostEnv);
    await logged(again, /registered with router/);
    await chat.say("/shell echo back-by-key", /back-by-key/);
  });
});
