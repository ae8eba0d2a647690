import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { commandField, expandHome, pathField } from "../src/index.ts";

// `~` and `$HOME` in path keys, against a made-up home directory (nothing is created anywhere).

const home = "/home/fake";
// biome-ignore lint/suspicious/noTemplateCurlyInString: the braced form, as written in a YAML file
const BRACED = "${HOME}";

describe("expandHome", () => {
  it("expands ~, ~/…, $HOME and its braced form at the start", () => {
    expect(
      ["~", "~/pwdata", "$HOME", "$HOME/pwdata", BRACED, `${BRACED}/a/b`].map((p) => expandHome(p, home)),
    ).toEqual([home, `${home}/pwdata`, home, `${home}/pwdata`, home, `${home}/a/b`]);
  });

  it("leaves everything else as written", () => {
    // `~user` would need a password-database lookup of another user: not done, so it stays a name.
    for (const path of [
      "~user/x",
      "~~/x",
      "$HOMEDIR/x",
      BRACED.slice(0, -1),
      "a/~/b",
      "/srv/$HOME",
      "pwdata",
      "",
    ])
      expect(expandHome(path, home)).toBe(path);
  });

  it("takes the home directory literally, `$` and all", () => {
    expect(expandHome("~/x", "/home/$&odd")).toBe("/home/$&odd/x");
  });
});

describe("pathField", () => {
  const field = pathField({ home: () => home });

  it("expands the home, then makes the path absolute", () => {
    expect(field.parse("~/pwdata")).toBe(`${home}/pwdata`);
    expect(field.parse(`${BRACED}/../other`)).toBe("/home/other");
    expect(field.parse("/srv/data/")).toBe("/srv/data");
    expect(field.parse("pwdata")).toBe(resolve("pwdata"));
    expect(field.parse("~user/x")).toBe(resolve("~user/x"));
  });

  it("refuses an empty value", () => {
    expect(field.safeParse("").error?.issues[0]?.message).toBe("must be a path");
  });
});

describe("commandField", () => {
  const field = commandField("claude", { home: () => home });

  it("expands only a path into the home; a bare name stays a PATH lookup", () => {
    expect(field.parse(undefined)).toBe("claude");
    expect(field.parse("claude")).toBe("claude");
    expect(field.parse("~/bin/claude")).toBe(`${home}/bin/claude`);
    expect(field.parse("$HOME/.local/bin/codex")).toBe(`${home}/.local/bin/codex`);
    expect(field.parse("~")).toBe("~");
    expect(field.parse("./bin/claude")).toBe("./bin/claude");
  });
});
