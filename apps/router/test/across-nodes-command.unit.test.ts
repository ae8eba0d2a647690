import { describe, expect, it } from "vitest";
import { isAcrossNodesCommand } from "../src/forwarding/ask-every-node.ts";

// Which messages are asked of every node at once: the work-listing commands alone, and /usage with
// its period; anything with more (an id, a user, an @node) goes to one node as usual.

describe("isAcrossNodesCommand", () => {
  it.each([
    ["/tasks", true],
    ["/plans", true],
    ["/usage", true],
    ["/usage week", true],
    ["/USAGE Month", true],
    ["/plans 3f2a", false],
    ["/tasks week", false],
    ["/usage week telegram:1", false],
    ["/usage lift telegram:1", false],
    ["@home-pc /usage", false],
    ["/shell ls", false],
  ])("%s → %s", (text, across) => {
    expect(isAcrossNodesCommand(text)).toBe(across);
  });
});
