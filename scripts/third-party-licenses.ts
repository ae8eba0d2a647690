import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// The bundle carries other people's code: their licences travel with it, one section per
// package (name, version, licence, and the licence text the package ships).

interface Manifest {
  name: string;
  version: string;
  license?: string;
}

export function thirdPartyLicenses(packageDirs: readonly string[]): string {
  const sections = new Map<string, string>();
  for (const dir of packageDirs) {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
    const key = `${manifest.name}@${manifest.version}`;
    if (sections.has(key)) continue;
    const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
    const text = file ? readFileSync(join(dir, file), "utf8").trim() : "(no licence file in the package)";
    sections.set(key, `## ${key} — ${manifest.license ?? "see below"}\n\n\`\`\`\n${text}\n\`\`\`\n`);
  }
  return [
    "# Third-party licences",
    "",
    "`dist/` bundles these packages (the others are installed as dependencies, with their own licences).",
    "",
    ...[...sections.keys()].sort().map((key) => sections.get(key)),
  ].join("\n");
}
