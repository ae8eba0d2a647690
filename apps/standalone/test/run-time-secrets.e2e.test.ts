import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryChatAdapter } from "@phonework/router";
import { createLogger, REDACTED, SecretValues } from "@phonework/runtime";
import { CleanupScope, captureStream, placeholderConsolePage, spawnApp, waitFor } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { StandaloneConfigSchema } from "../src/config.ts";
import { startStandalone } from "../src/standalone.ts";

// Codes the standalone mints while it runs (join codes, console links) join its log's secret
// values as they are made, as the router's do. Nothing logs a code on purpose (the console's login
// route even logs only warnings, as its address carries one), so each test sends a request with
// the code in its URL to a path that is logged at info, as a code pasted into the wrong address
// would be: that line must show the redaction marker where the code was.

const scope = new CleanupScope();
afterEach(() => scope.run());

/** Whatever the shell running the tests has set: these runs decide for themselves. */
const UNSET = { LOG_LEVEL: undefined, LOG_FORMAT: undefined, PHONEWORK_CONFIG: undefined, CHAT: undefined };

/** A path the router logs requests for at info (it has no such route). */
const PASTED = "/pasted";

const jsonLines = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, string | undefined>);

const pastedLines = (log: string) =>
  log.split("\n").filter((line) => line.includes('"incoming request"') && line.includes(`"url":"${PASTED}`));

describe("codes minted at run time are redacted from the standalone's log by value", () => {
  it("pnpm standalone (a real process): a join code from /pair is logged as the marker", async () => {
    const dataDir = scope.tempDir();
    const child = scope.track(
      spawnApp("standalone", {
        ...UNSET,
        CHAT: "terminal",
        DATA_DIR: dataDir,
        WORKING_DIR: scope.tempDir(),
        NODE_ID: "my-box",
      }),
    );
    const logPath = join(dataDir, "logs", "phonework.log");
    // The terminal's user is the standalone's admin: /pair answers with the code.
    child.writeLine("/pair laptop2");
    const code = (await child.waitForStdout(/--join (laptop2:\S+)/, 30_000))[1] ?? "";
    expect(code).toMatch(/^laptop2:[\w-]+$/);
    const url = await waitFor(
      () => jsonLines(readFileSync(logPath, "utf8")).find((line) => line.msg === "router listening")?.url,
      { message: "the router's address in the log" },
    );

    await fetch(`${url}${PASTED}?code=${code}`);
    await waitFor(() => pastedLines(readFileSync(logPath, "utf8")).length > 0, {
      message: "the request's log line",
    });
    child.endInput();
    expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });

    const log = readFileSync(logPath, "utf8");
    expect(pastedLines(log)[0]).toContain(`"url":"${PASTED}?code=${REDACTED}"`);
    expect(log).not.toContain(code);
    expect(log).not.toContain(code.slice("laptop2:".length));
  });

  it("a console link's code from /console is logged as the marker", async () => {
    const dir = scope.tempDir();
    const secrets = new SecretValues();
    const log = captureStream(false);
    const chat = createMemoryChatAdapter();
    const app = await startStandalone(
      StandaloneConfigSchema.parse({
        NODE_ID: "home-pc",
        DATA_DIR: dir,
        WORKING_DIR: dir,
        ALLOWED_USERS: "*", // the memory chat's users are the test's own
      }),
      {
        logger: createLogger({ level: "info", destination: log.stream, format: "json", secrets }),
        secrets,
        chat,
        consoleAssets: placeholderConsolePage(dir),
      },
    );
    scope.add(() => app.stop());

    await chat.receive({ userId: "me", text: "/console" });
    const link = await waitFor(
      () =>
        chat
          .textsFor("me")
          .map((text) => /https?:\/\/\S+\/console\/login\?code=[\w-]+/.exec(text)?.[0])
          .find(Boolean),
      { message: "a console link" },
    );
    const code = new URL(link).searchParams.get("code") ?? "";
    expect(code).toMatch(/^[\w-]{43}$/);
    expect((await fetch(link)).status).toBe(200); // the sign-in page: the link works

    await fetch(`${app.url}${PASTED}?code=${code}`);
    await waitFor(() => pastedLines(log.output()).length > 0, { message: "the request's log line" });
    expect(pastedLines(log.output())[0]).toContain(`"url":"${PASTED}?code=${REDACTED}"`);
    expect(log.output()).not.toContain(code);
  });
});
