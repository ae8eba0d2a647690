import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, brokenDocLinks, slug } from "../check-doc-links.ts";
import { CONFIG_KEYS_DOC, committedConfigKeys, configKeyRows, configKeysMarkdown } from "../config-docs.ts";
import { PLATFORM_TABLE_FILE, platformTableMarkdown, withPlatformTable } from "../platform-table.ts";
import { repoRoot } from "../workspace-manifests.ts";

// The README and docs/: links that resolve, a README that fits on a screen, a configuration
// reference generated from the schemas, and the deploy page showing the proxy configs as shipped.

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");

describe("the docs", () => {
  it("every relative link and #anchor in README.md, docs/ and deploy/ resolves", () => {
    expect(brokenDocLinks()).toEqual([]);
  });

  it("the link check has teeth: GitHub's anchors, repeats numbered, code ignored", () => {
    expect(slug("Check a machine: `phonework doctor`")).toBe("check-a-machine-phonework-doctor");
    expect(slug('The assistant on each host ("mailboy")')).toBe("the-assistant-on-each-host-mailboy");
    expect([...anchorsOf("# A\n## Logs\n```\n# not a heading\n```\n## Logs\n")]).toEqual([
      "a",
      "logs",
      "logs-1",
    ]);
  });

  it("README.md fits on a screen (≤ 200 lines) and starts with the two commands CI runs", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
    expect(readme).toContain(
      "npx -y pnpm@9.15.9 install --frozen-lockfile && npx -y pnpm@9.15.9 package && npm install -g ./dist/phonework-*.tgz && phonework standalone\n",
    );
    expect(readme).toContain(
      "npx -y pnpm@9.15.9 install --frozen-lockfile && npx -y pnpm@9.15.9 check && npx -y pnpm@9.15.9 test\n",
    );
    expect(readme).not.toMatch(/Node 20 is supported|22 or 24, the LTS lines/);
  });

  it(`${PLATFORM_TABLE_FILE}'s platform table is what the adapters declare (run pnpm docs:platforms)`, () => {
    const readme = read(PLATFORM_TABLE_FILE);
    expect(readme).toBe(withPlatformTable(readme));
    // The table has teeth: a platform's declared capability is what its row shows.
    expect(platformTableMarkdown()).toMatch(
      /\| Telegram \| `TELEGRAM_BOT_TOKEN` \| 4,096 \| yes \| yes \| as replies \|/,
    );
    expect(withPlatformTable(readme.replace("| 4,096 |", "| 9,999 |"))).toBe(readme);
  });

  it(`${CONFIG_KEYS_DOC} is what the config schemas generate (run pnpm docs:config)`, () => {
    // configKeyRows throws when a key has no description, or a default only this machine knows.
    expect(configKeyRows().length).toBeGreaterThan(100);
    expect(committedConfigKeys(), `${CONFIG_KEYS_DOC} is stale: run pnpm docs:config`).toBe(
      configKeysMarkdown(),
    );
  });

  it("docs/deploy-vps.md shows the shipped nginx and Caddy configs exactly", () => {
    const page = read("docs/deploy-vps.md");
    expect(page).toContain(`\`\`\`nginx\n${read("deploy/nginx/phonework.conf")}\`\`\`\n`);
    expect(page).toContain(`\`\`\`caddy\n${read("deploy/caddy/Caddyfile")}\`\`\`\n`);
  });
});
