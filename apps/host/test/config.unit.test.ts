import { homedir, hostname } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError, loadConfig } from "@phonework/runtime";
import { describe, expect, it } from "vitest";
import { HostConfigSchema } from "../src/config/host-config.ts";

const load = (env: Record<string, string | undefined>, file?: string) =>
  loadConfig(HostConfigSchema, {
    configPath: file ? "host.yaml" : undefined,
    env,
    readFile: () => file ?? "",
  }).config;

describe("host config", () => {
  it("splits SERVES_USERS; NODE_ID is the machine's name unless set (and says which)", () => {
    const config = load({ ROUTER_SECRET: "s", NODE_ID: "home-pc", SERVES_USERS: "ou_a, ou_b,," });
    expect(config).toMatchObject({ NODE_ID: "home-pc", nodeIdExplicit: true });
    expect(config.DISPLAY_NAME).toBeUndefined(); // the node id is shown; see createHost
    expect(config.SERVES_USERS).toEqual(["ou_a", "ou_b"]);
    // The machine's name, reduced to what a node id may hold (computed here, not by the code under test).
    const fromHostname =
      hostname()
        .replace(/[^A-Za-z0-9._-]+/g, "-")
        .slice(0, 64) || "host";
    expect(load({ ROUTER_SECRET: "s" })).toMatchObject({ NODE_ID: fromHostname, nodeIdExplicit: false });
  });

  it("refuses plaintext ws:// to another machine unless ALLOW_INSECURE_TRANSPORT=1", () => {
    for (const url of [
      "ws://router.example.com/ws/node",
      "ws://10.0.0.5:8000/ws/node",
      "ws://[2001:db8::1]/ws/node",
    ])
      expect(() => load({ ROUTER_URL: url })).toThrow(
        /ROUTER_URL: is ws:\/\/ \(plaintext\) to a router on another machine; use wss:\/\//,
      );
    for (const url of ["ws://127.0.0.1:8000/ws/node", "ws://localhost/ws/node", "ws://[::1]:9/ws/node"])
      expect(load({ ROUTER_URL: url }).ROUTER_URL).toBe(url);
    expect(load({ ROUTER_URL: "wss://router.example.com/ws/node" }).ALLOW_INSECURE_TRANSPORT).toBe(false);
    expect(
      load({ ROUTER_URL: "ws://10.0.0.5/ws/node", ALLOW_INSECURE_TRANSPORT: "1" }).ALLOW_INSECURE_TRANSPORT,
    ).toBe(true);
  });

  it("takes a certificate pin with or without colons, in any case; refuses anything else", () => {
    const hex = "AB".repeat(32);
    expect(load({ ROUTER_CERT_SHA256: hex.match(/../g)?.join(":") }).ROUTER_CERT_SHA256).toBe(
      "ab".repeat(32),
    );
    expect(() => load({ ROUTER_CERT_SHA256: "abc" })).toThrow(
      /ROUTER_CERT_SHA256: must be a SHA-256 fingerprint/,
    );
  });

  it("MAX_ATTACHMENT_BYTES defaults to 20 MiB and must be a positive whole number", () => {
    expect(load({}).MAX_ATTACHMENT_BYTES).toBe(20 * 1024 * 1024);
    expect(load({ MAX_ATTACHMENT_BYTES: "1024" }).MAX_ATTACHMENT_BYTES).toBe(1024);
    for (const bad of ["0", "-5", "1.5", "lots"])
      expect(() => load({ MAX_ATTACHMENT_BYTES: bad }), bad).toThrow(/MAX_ATTACHMENT_BYTES/);
  });

  it("takes a YAML list from the file and lets the environment win", () => {
    const config = load({ ROUTER_SECRET: "from-env" }, "ROUTER_SECRET: from-file\nSERVES_USERS:\n  - ou_x\n");
    expect(config.ROUTER_SECRET).toBe("from-env");
    expect(config.SERVES_USERS).toEqual(["ou_x"]);
  });

  it("names the bad key: bad URL, bad node id, missing working dir", () => {
    expect(() => load({ ROUTER_SECRET: "s", ROUTER_URL: "http://x" })).toThrow(
      /ROUTER_URL: must be a ws:\/\//,
    );
    expect(() => load({ ROUTER_SECRET: "s", NODE_ID: "bad id!" })).toThrow(/NODE_ID: may only contain/);
    expect(() => load({ ROUTER_SECRET: "s", WORKING_DIR: "/definitely/not/here" })).toThrow(
      /WORKING_DIR: \/definitely\/not\/here is not an existing directory/,
    );
    expect(() => load({ NODE_ID: "", WORKING_DIR: "/nope" })).toThrow(ConfigError);
  });

  // Only strings are compared: nothing is created in (or read from) the real home directory,
  // except WORKING_DIR=~, which is the home directory itself.
  describe("~ and $HOME in path keys", () => {
    const home = homedir();
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the braced form, as written in a YAML file
    const braced = "${HOME}";

    it("expands them from YAML and from the environment, to absolute paths under the home directory", () => {
      expect(load({}, "DATA_DIR: ~/pwdata\nROUTER_CA_FILE: $HOME/certs/ca.pem\n")).toMatchObject({
        DATA_DIR: join(home, "pwdata"),
        ROUTER_CA_FILE: join(home, "certs", "ca.pem"),
      });
      expect(load({ DATA_DIR: "$HOME/pwdata" }).DATA_DIR).toBe(join(home, "pwdata"));
      expect(load({ DATA_DIR: `${braced}/x` }).DATA_DIR).toBe(join(home, "x"));
      expect(load({}, `DATA_DIR: ${braced}/x\n`).DATA_DIR).toBe(join(home, "x"));
      expect(load({ WORKING_DIR: "~" }).WORKING_DIR).toBe(home);
    });

    it("WORKING_DIR defaults to a folder of its own in the home directory, not the home directory nor wherever the process was started", () => {
      expect(process.cwd()).not.toBe(home); // the tests run in the repository, as `pnpm host` did
      expect(load({}).WORKING_DIR).toBe(join(home, "phonework"));
    });

    it("leaves other paths as written, made absolute", () => {
      expect(load({ DATA_DIR: "/srv/phonework" }).DATA_DIR).toBe("/srv/phonework");
      expect(load({ DATA_DIR: "pwdata" }).DATA_DIR).toBe(resolve("pwdata"));
      // `~user` is another user's home: that needs a password-database lookup, which is not done,
      // so it stays a relative name (as it would in a shell that could not find the user).
      expect(load({ DATA_DIR: "~user/x" }).DATA_DIR).toBe(resolve("~user/x"));
    });

    it("a coding CLI: a bare name stays a PATH lookup; ~/… is expanded", () => {
      expect(load({}).CLAUDE_BIN).toBe("claude");
      expect(load({ CLAUDE_BIN: "~/.local/bin/claude", CODEX_BIN: "codex" })).toMatchObject({
        CLAUDE_BIN: join(home, ".local", "bin", "claude"),
        CODEX_BIN: "codex",
      });
    });

    it("the WORKING_DIR error shows the expanded path it checked", () => {
      expect(() => load({ WORKING_DIR: "~/projcts-that-do-not-exist" })).toThrow(
        `WORKING_DIR: ${join(home, "projcts-that-do-not-exist")} is not an existing directory`,
      );
    });
  });
});
