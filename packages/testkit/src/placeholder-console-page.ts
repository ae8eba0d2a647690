import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// The web console's built page, as three empty files: enough for the router to serve the console
// and mint its links, for code that drives the console's HTTP and WebSocket side without a browser.

/** Writes the placeholder page into `dir`/console and returns that directory. */
export function placeholderConsolePage(dir: string): string {
  const assets = join(dir, "console");
  mkdirSync(assets, { recursive: true });
  for (const name of ["console.js", "console.css", "login.js"]) writeFileSync(join(assets, name), "");
  return assets;
}
