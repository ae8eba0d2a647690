import { tmpdir } from "node:os";
import { join } from "node:path";
import { HostConfigSchema } from "@phonework/host";
import { RouterConfigSchema } from "@phonework/router";
import { loadConfig } from "@phonework/runtime";
import { StandaloneConfigSchema } from "@phonework/standalone";
import { describe, expect, it } from "vitest";

// The example config shipped for each program (deploy/config/, linked from the README) loads with
// that program's schema: every key is one it reads, every value one it takes.

const examples = join(import.meta.dirname, "..", "..", "..", "deploy", "config");
// WORKING_DIR must exist on the machine that reads it; ~/projects is the example's, not this one's.
const here = { WORKING_DIR: tmpdir() };

describe("deploy/config examples", () => {
  it.each([
    ["router.yaml", RouterConfigSchema, {}],
    ["host.yaml", HostConfigSchema, here],
    ["standalone.yaml", StandaloneConfigSchema, here],
  ] as const)(
    "%s loads with its program's schema, with no key it does not read",
    (file, schema, overrides) => {
      const loaded = loadConfig(schema, { env: {}, configPath: join(examples, file), overrides });
      expect(loaded.unknownKeys).toEqual([]);
      expect(Object.keys(loaded.given).length).toBeGreaterThan(2);
    },
  );
});
