import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { saveConfigFile } from "../src/config-file.ts";
import { loadConfig } from "../src/config-loader.ts";

// --save-config: what the flags, the environment and the file gave, written as a config file that
// loads back to the same settings; a join code is left out (it pairs once), defaults too.

const Schema = z.object({
  ROUTER_URL: z.string().default("ws://127.0.0.1:8000/ws/node"),
  WORKING_DIR: z.string().default("/home/x/phonework"),
  OPENAI_API_KEY: z.string().optional(),
  JOIN_CODE: z.string().optional(),
  MAX: z.coerce.number().default(3),
});
const dirs: Array<() => void> = [];
afterEach(() => {
  for (const remove of dirs.splice(0)) remove();
});

describe("saveConfigFile", () => {
  it("writes what was given (not defaults, not JOIN_CODE), 0600, and it loads back to the same settings", () => {
    const dir = makeTempDir();
    dirs.push(dir.remove);
    const file = join(dir.path, "first.yaml");
    writeFileSync(file, "MAX: 7\n");
    const source = {
      env: { OPENAI_API_KEY: "sk-secret", JOIN_CODE: "home:AAAA-BBBB-CCCC-DDDD" },
      configPath: file,
      overrides: { ROUTER_URL: "wss://r.example/ws/node" },
    };
    const first = loadConfig(Schema, source);
    const saved = saveConfigFile(join(dir.path, "saved.yaml"), first.given, "phonework-host");
    expect(saved.keys).toEqual(["MAX", "OPENAI_API_KEY", "ROUTER_URL"]);
    expect(statSync(saved.path).mode & 0o777).toBe(0o600);
    const text = readFileSync(saved.path, "utf8");
    expect(text).not.toMatch(/^JOIN_CODE:/m);
    expect(text).not.toMatch(/^WORKING_DIR:/m);
    const again = loadConfig(Schema, { env: {}, configPath: saved.path });
    expect(again.config).toEqual({ ...first.config, JOIN_CODE: undefined });
  });
});
