import { describe, expect, it } from "vitest";
import { commandMenu } from "../src/chat/command-menu.ts";
import type { NodeInfo } from "../src/registry/node-info.ts";

// A node command with a hyphen keeps its whole name in the menu: "/forget-memory" must not become
// "/forget", which is the router's own admin command (forget a node).

describe("command menu", () => {
  it("keeps a hyphenated command's whole name", () => {
    const node = {
      commands: [{ usage: "/forget-memory [yes]", description: "clear this chat's memory" }],
    } as unknown as NodeInfo;
    const names = commandMenu([node]).map((entry) => entry.command);
    expect(names).toContain("forget-memory");
    expect(names).not.toContain("forget");
  });

  it("lists the router's voice commands, which a node cannot take over", () => {
    const node = {
      commands: [{ usage: "/voice", description: "a node's own voice command" }],
    } as unknown as NodeInfo;
    const menu = commandMenu([node]);
    expect(menu.map((entry) => entry.command)).toEqual(expect.arrayContaining(["voice", "retry"]));
    expect(menu.find((entry) => entry.command === "voice")?.description).toBe(
      "Answers read aloud too: on or off",
    );
  });
});
