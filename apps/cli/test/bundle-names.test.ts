import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { builtCli } from "@phonework/testkit";
import { describe, expect, it } from "vitest";

// The bundle keeps the names of the classes it renames. esbuild renames a class that clashes with
// another name in its chunk (abort-controller's `AbortSignal` became `AbortSignal2`), and bundled
// code may check `constructor.name`: node-fetch, which grammY uses, refused every Bot API call with
// a renamed AbortSignal, so Telegram was dead in the installed package while every test passed
// from source. With esbuild's keepNames each renamed class tells its name back (`__name`).

/** Every class the bundle declares under a renamed binding (`var AbortSignal2 = class …`). */
function renamedClasses(code: string): Array<{ binding: string; keeps: boolean }> {
  const found: Array<{ binding: string; keeps: boolean }> = [];
  for (const match of code.matchAll(/\b(?:var|let|const) ([A-Za-z_$][\w$]*?)(\d+) = class\b[^{]*\{/g)) {
    const [declaration, name, digits] = match;
    const body = code.slice(
      (match.index ?? 0) + declaration.length,
      (match.index ?? 0) + declaration.length + 200,
    );
    // The name it reports: its own (`Client$19` may be the author's name for it), never the binding's alone.
    const reported = /^\s*static \{\s*__name\(this, "([^"]+)"\)/.exec(body)?.[1];
    // Or the name of its class expression as the author wrote it (`var Collection = class _Collection`,
    // as tsup emits a class with static members), which the author's own __name then follows.
    const own = [name, `${name}${digits}`, `_${name}`];
    found.push({ binding: `${name}${digits}`, keeps: reported !== undefined && own.includes(reported) });
  }
  return found;
}

describe("the built phonework", () => {
  it("keeps the name of every class it renames", () => {
    const dir = dirname(builtCli);
    const classes = readdirSync(dir)
      .filter((file) => file.endsWith(".js"))
      .flatMap((file) => renamedClasses(readFileSync(join(dir, file), "utf8")));
    // Which classes clash depends on how esbuild splits the chunks; some always do.
    expect(classes.length).toBeGreaterThan(0);
    expect(classes.filter((c) => !c.keeps)).toEqual([]);
  });
});
