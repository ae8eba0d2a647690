import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, configPathFrom, loadConfig, port, seconds, stringList } from "../src/index.ts";

const Schema = z.object({
  PORT: port(8000),
  WAIT_S: seconds(30),
  USERS: stringList(),
  NAME: z.string().optional(),
});

describe("loadConfig", () => {
  it("reads the file named by --config, then lets the environment win", () => {
    const files: Record<string, string> = { "a.yaml": "PORT: 9000\nWAIT_S: 5\nNAME: from-file\n" };
    const { config, path } = loadConfig(Schema, {
      configPath: "a.yaml",
      env: { WAIT_S: "7" },
      readFile: (p) => files[p] ?? "",
    });
    expect(path).toBe("a.yaml");
    expect(config).toEqual({ PORT: 9000, WAIT_S: 7, USERS: [], NAME: "from-file" });
  });

  it("finds the file from --config, else PHONEWORK_CONFIG", () => {
    expect(configPathFrom({ env: { PHONEWORK_CONFIG: "b.yaml" } })).toBe("b.yaml");
    expect(configPathFrom({ configPath: "c.yaml", env: { PHONEWORK_CONFIG: "b.yaml" } })).toBe("c.yaml");
    expect(configPathFrom({ env: { PHONEWORK_CONFIG: "" } })).toBeUndefined();
  });

  it("precedence: flag > environment > file > default", () => {
    const load = (env: Record<string, string>, overrides: Record<string, string | undefined> = {}) =>
      loadConfig(Schema, { configPath: "a.yaml", env, overrides, readFile: () => "PORT: 9000\nNAME: file\n" })
        .config;
    expect(load({})).toMatchObject({ PORT: 9000, NAME: "file", WAIT_S: 30 });
    expect(load({ PORT: "9100", NAME: "env" })).toMatchObject({ PORT: 9100, NAME: "env" });
    expect(load({ PORT: "9100", NAME: "env" }, { PORT: "9200", NAME: undefined })).toMatchObject({
      PORT: 9200,
      NAME: "env",
    });
    // A flag's value is validated like any other source, and the message names the key.
    expect(() => load({}, { PORT: "x" })).toThrow(/PORT:/);
  });

  it("applies defaults when nothing is given", () => {
    expect(loadConfig(Schema, { env: {} }).config).toEqual({ PORT: 8000, WAIT_S: 30, USERS: [] });
  });

  it("names every bad key in one message", () => {
    const attempt = () => loadConfig(Schema, { env: { PORT: "70000", WAIT_S: "-1" } });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/PORT: must be 0-65535/);
    expect(attempt).toThrow(/WAIT_S: must be greater than 0/);
  });

  it("reports unreadable and malformed files clearly", () => {
    const missing = () =>
      loadConfig(Schema, {
        configPath: "nope.yaml",
        env: {},
        readFile: () => {
          throw new Error("ENOENT: no such file");
        },
      });
    expect(missing).toThrow("cannot read config file nope.yaml: ENOENT: no such file");
    const broken = () => loadConfig(Schema, { configPath: "x.yaml", env: {}, readFile: () => "a: [" });
    expect(broken).toThrow(/config file x.yaml is not valid YAML/);
    const list = () => loadConfig(Schema, { configPath: "x.yaml", env: {}, readFile: () => "- 1\n- 2" });
    expect(list).toThrow("config file x.yaml must be a mapping of KEY: value");
  });

  it("lists keys in the file that the program does not know", () => {
    const { unknownKeys } = loadConfig(Schema, {
      configPath: "x.yaml",
      env: {},
      readFile: () => "PORT: 1\nPROT: 2\n",
    });
    expect(unknownKeys).toEqual(["PROT"]);
  });
});
