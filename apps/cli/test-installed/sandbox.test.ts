import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scope, telegramWorld } from "./support.ts";

// The sandbox on the installed host (SANDBOX=on: bubblewrap, or the host refuses to start): a
// /shell command may write in WORKING_DIR and nowhere else, the rest of the filesystem read-only.

// Under /var/tmp, not /tmp: the sandbox gives each command a /tmp of its own, so a directory made
// under the machine's /tmp would not be what the command sees.
const VISIBLE_TMP = "/var/tmp";

describe("the sandbox, installed", () => {
  it("/shell: a write outside WORKING_DIR is refused by the read-only filesystem, one inside works", async () => {
    const root = mkdtempSync(join(VISIBLE_TMP, "phonework-installed-sandbox-"));
    scope.add(() => rmSync(root, { recursive: true, force: true }));
    const workingDir = join(root, "projects");
    const outside = join(root, "outside");
    mkdirSync(workingDir);
    mkdirSync(outside);
    writeFileSync(join(outside, "precious.txt"), "PRECIOUS");
    const { chat } = await telegramWorld({ host: { SANDBOX: "on", WORKING_DIR: workingDir } });

    const answer = await chat.say(
      `/shell touch ${outside}/pwned; rm -f ${outside}/precious.txt; touch ${workingDir}/made-here && echo wrote-inside`,
      /wrote-inside/,
    );
    expect(answer.text).toMatch(/Read-only file system/);
    expect(existsSync(join(outside, "pwned"))).toBe(false);
    expect(existsSync(join(outside, "precious.txt"))).toBe(true);
    expect(existsSync(join(workingDir, "made-here"))).toBe(true);
  });
});
