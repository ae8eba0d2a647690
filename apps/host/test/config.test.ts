import { ConfigError, loadConfig } from "@phonework/runtime";
import { describe, expect, it } from "vitest";
import { HostConfigSchema } from "../src/config.ts";

const load = (env: Record<string, string>, file?: string) =>
  loadConfig(HostConfigSchema, {
    argv: file ? ["--config", "host.yaml"] : [],
    env,
    readFile: () => file ?? "",
  }).config;

describe("host config", () => {
  it("defaults DISPLAY_NAME to NODE_ID and splits SERVES_USERS", () => {
    const config = load({ ROUTER_SECRET: "s", NODE_ID: "home-pc", SERVES_USERS: "ou_a, ou_b,," });
    expect(config.DISPLAY_NAME).toBe("home-pc");
    expect(config.SERVES_USERS).toEqual(["ou_a", "ou_b"]);
  });

  it("takes a YAML list from the file and lets the environment win", () => {
    const config = load({ ROUTER_SECRET: "from-env" }, "ROUTER_SECRET: from-file\nSERVES_USERS:\n  - ou_x\n");
    expect(config.ROUTER_SECRET).toBe("from-env");
    expect(config.SERVES_USERS).toEqual(["ou_x"]);
  });

  it("names the bad key: missing secret, bad URL, bad node id, missing working dir", () => {
    expect(() => load({})).toThrow(/ROUTER_SECRET: must be the router's shared secret/);
    expect(() => load({ ROUTER_SECRET: "s", ROUTER_URL: "http://x" })).toThrow(
      /ROUTER_URL: must be a ws:\/\//,
    );
    expect(() => load({ ROUTER_SECRET: "s", NODE_ID: "bad id!" })).toThrow(/NODE_ID: may only contain/);
    expect(() => load({ ROUTER_SECRET: "s", WORKING_DIR: "/definitely/not/here" })).toThrow(
      /WORKING_DIR: must be an existing directory/,
    );
    expect(() => load({})).toThrow(ConfigError);
  });
});
