import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { annotatePlist, plistProgramArguments, renderLaunchdPlist } from "../src/service/launchd-plist.ts";
import type { ServiceSpec } from "../src/service/service-spec.ts";
import { wellFormedXmlProblem } from "./xml-well-formed.ts";

const spec: ServiceSpec = {
  app: "host",
  argv: [
    "/Users/ann/.nvm/versions/node/v20/bin/node",
    "/Users/ann/Tom & Jerry's <apps>/phonework/dist/phonework.js",
    "host",
    "--config",
    '/Users/ann/"quoted" dir/host.yaml',
  ],
  path: "/Users/ann/.local/bin:/opt/homebrew/bin:/usr/bin:/bin",
  workingDirectory: "/Users/ann",
  scope: "user",
};
const options = { label: "com.phonework.host", logFile: "/Users/ann/Library/Logs/phonework/host.log" };
const hasPython = spawnSync("python3", ["--version"]).status === 0;

describe("launchd plist", () => {
  const text = renderLaunchdPlist(spec, options);

  it("runs the command line, escaped, with PATH, the home directory and a log file", () => {
    expect(text).toContain("<key>Label</key>\n  <string>com.phonework.host</string>");
    expect(text).toContain(
      [
        "  <key>ProgramArguments</key>",
        "  <array>",
        "    <string>/Users/ann/.nvm/versions/node/v20/bin/node</string>",
        "    <string>/Users/ann/Tom &amp; Jerry's &lt;apps&gt;/phonework/dist/phonework.js</string>",
        "    <string>host</string>",
        "    <string>--config</string>",
        '    <string>/Users/ann/"quoted" dir/host.yaml</string>',
        "  </array>",
      ].join("\n"),
    );
    expect(text).toContain(
      "<key>EnvironmentVariables</key>\n  <dict>\n    <key>PATH</key>\n    <string>/Users/ann/.local/bin:/opt/homebrew/bin:/usr/bin:/bin</string>",
    );
    expect(text).toContain("<key>WorkingDirectory</key>\n  <string>/Users/ann</string>");
    expect(text).toContain(
      "<key>StandardOutPath</key>\n  <string>/Users/ann/Library/Logs/phonework/host.log</string>",
    );
    expect(text).toContain(
      "<key>StandardErrorPath</key>\n  <string>/Users/ann/Library/Logs/phonework/host.log</string>",
    );
  });

  it("starts at load and again after any exit, at most every 5 s", () => {
    expect(text).toContain("<key>RunAtLoad</key>\n  <true/>");
    expect(text).toContain("<key>KeepAlive</key>\n  <true/>");
    expect(text).toContain("<key>ThrottleInterval</key>\n  <integer>5</integer>");
  });

  it("is well-formed XML, also with a note that holds -- and <", () => {
    expect(wellFormedXmlProblem(text)).toBeUndefined();
    const annotated = annotatePlist(text, [
      "printed only",
      "  launchctl bootstrap gui/501 '/a--b/<x>.plist'",
    ]);
    expect(wellFormedXmlProblem(annotated)).toBeUndefined();
    expect(annotated.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<!--\n  printed only\n')).toBe(true);
  });

  it("the well-formedness check is not vacuous", () => {
    expect(wellFormedXmlProblem(text.replace("&amp;", "&"))).toMatch(/bare &/);
    expect(wellFormedXmlProblem(text.replace("&lt;apps&gt;", "<apps>"))).toMatch(
      /closes nothing|never closed/,
    );
    expect(wellFormedXmlProblem(text.replace("</dict>\n</plist>", "</plist>"))).toBeDefined();
    expect(wellFormedXmlProblem(`${text}<extra/>`)).toMatch(/more than one root/);
  });

  it("gives back the program arguments it was rendered from", () => {
    expect(plistProgramArguments(text)).toEqual(spec.argv);
    expect(plistProgramArguments("<plist><dict></dict></plist>")).toBeUndefined();
  });

  it("refuses a character no XML can hold", () => {
    expect(() => renderLaunchdPlist({ ...spec, path: "/bin\u0001" }, options)).toThrow(/cannot hold/);
  });

  it.runIf(hasPython)("Python's plistlib reads the same values back", () => {
    const script =
      "import json, plistlib, sys; p = plistlib.loads(sys.stdin.buffer.read()); print(json.dumps(p))";
    const result = spawnSync("python3", ["-c", script], {
      input: annotatePlist(text, ["a -- note"]),
      encoding: "utf8",
    });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({
      Label: "com.phonework.host",
      ProgramArguments: spec.argv,
      EnvironmentVariables: { PATH: spec.path },
      WorkingDirectory: "/Users/ann",
      RunAtLoad: true,
      KeepAlive: true,
      ThrottleInterval: 5,
      StandardOutPath: options.logFile,
      StandardErrorPath: options.logFile,
    });
  });
});
