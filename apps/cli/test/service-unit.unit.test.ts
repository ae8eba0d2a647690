import { mkdirSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { CleanupScope, fcParams } from "@phonework/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { ServiceSpec } from "../src/service/service-spec.ts";
import {
  environmentAssignment,
  execCommandLine,
  quoteExecArg,
  splitCommandLine,
} from "../src/service/systemd-quote.ts";
import { annotateUnit, parseUnitFile, renderSystemdUnit } from "../src/service/systemd-unit.ts";
import { canVerifyUnits, verifyUnit } from "./systemd-analyze.ts";

const scope = new CleanupScope();
afterEach(() => scope.run());

const userSpec: ServiceSpec = {
  app: "host",
  argv: [
    "/opt/node 20/bin/node",
    "/home/ann/My Apps/phonework/dist/phonework.js",
    "host",
    "--config",
    "/home/ann/phone work/host 100%.yaml",
  ],
  path: "/home/ann/.local/bin:/usr/bin:/bin",
  workingDirectory: "/home/ann",
  scope: "user",
};

describe("systemd quoting", () => {
  it("leaves plain words alone and quotes the rest, with % and $ doubled", () => {
    expect(quoteExecArg("/usr/bin/node")).toBe("/usr/bin/node");
    expect(quoteExecArg("--config")).toBe("--config");
    expect(quoteExecArg("/a b/c")).toBe('"/a b/c"');
    expect(quoteExecArg('say "hi" \\o/')).toBe('"say \\"hi\\" \\\\o/"');
    expect(quoteExecArg("it's")).toBe('"it\'s"');
    expect(quoteExecArg("100%")).toBe("100%%");
    expect(quoteExecArg("$HOME/x")).toBe("$$HOME/x");
    expect(quoteExecArg("tab\there")).toBe('"tab\\x09here"');
    expect(quoteExecArg("")).toBe('""');
  });

  it("refuses a relative program: a leading - or @ would change its meaning", () => {
    expect(() => execCommandLine(["-node"])).toThrow(/absolute/);
  });

  it("quotes an Environment= assignment whole, doubling % but not $ (no expansion there)", () => {
    expect(environmentAssignment("PATH", "/a b:/c%:$x")).toBe('"PATH=/a b:/c%%:$x"');
  });

  it("splits command lines the way systemd documents it", () => {
    expect(splitCommandLine(`"/opt/my app/node" --x "a \\"q\\"" 'single quoted' \\x41 100%% $$HOME`)).toEqual(
      ["/opt/my app/node", "--x", 'a "q"', "single quoted", "A", "100%", "$HOME"],
    );
    expect(() => splitCommandLine('/bin/x "open')).toThrow(/unbalanced/);
  });

  it("reads back every argv it writes", () => {
    fc.assert(
      // Every ASCII character, controls included: quotes, backslashes, %, $ and spaces are the cases.
      fc.property(fc.string(), fc.array(fc.string({ unit: "binary-ascii" })), (program, args) => {
        const argv = [`/${program}`, ...args];
        expect(splitCommandLine(execCommandLine(argv))).toEqual(argv);
      }),
      fcParams(),
    );
    const unicode = ["/home/zoë/節點/node", "café au lait", "\u00a0non-breaking"];
    expect(splitCommandLine(execCommandLine(unicode))).toEqual(unicode);
  });
});

describe("systemd unit", () => {
  it("runs the given command line, quoted, with the config baked in", () => {
    const text = renderSystemdUnit(userSpec);
    expect(text).toContain(
      'ExecStart="/opt/node 20/bin/node" "/home/ann/My Apps/phonework/dist/phonework.js" host --config "/home/ann/phone work/host 100%%.yaml"\n',
    );
    expect(text).toContain('Environment="PATH=/home/ann/.local/bin:/usr/bin:/bin"\n');
    expect(text).toContain("WorkingDirectory=/home/ann\n");
    expect(text).toContain("Description=PhoneWork host\n");
  });

  it("restarts after any exit but a config error, 5 s later", () => {
    const unit = parseUnitFile(renderSystemdUnit(userSpec));
    expect(unit.get("Service", "Restart")).toBe("always");
    expect(unit.get("Service", "RestartSec")).toBe("5");
    expect(unit.get("Service", "RestartPreventExitStatus")).toBe("2");
  });

  it("a user unit is wanted by default.target and names no user", () => {
    const unit = parseUnitFile(renderSystemdUnit(userSpec));
    expect(unit.get("Install", "WantedBy")).toBe("default.target");
    expect(unit.get("Service", "User")).toBeUndefined();
    expect(unit.get("Unit", "After")).toBeUndefined();
  });

  it("a system unit runs as the given user, after the network, for multi-user.target", () => {
    const unit = parseUnitFile(
      renderSystemdUnit({ ...userSpec, scope: "system", runAs: { user: "ann", group: "1000" } }),
    );
    expect(unit.get("Service", "User")).toBe("ann");
    expect(unit.get("Service", "Group")).toBe("1000");
    expect(unit.get("Install", "WantedBy")).toBe("multi-user.target");
    expect(unit.get("Unit", "After")).toBe("network-online.target");
    expect(unit.get("Unit", "Wants")).toBe("network-online.target");
  });

  it("annotations are comments: the unit reads the same", () => {
    const text = renderSystemdUnit(userSpec);
    const annotated = annotateUnit(text, ["printed only", "  systemctl --user daemon-reload", ""]);
    expect(annotated.split("\n").slice(0, 3)).toEqual([
      "# printed only",
      "#   systemctl --user daemon-reload",
      "#",
    ]);
    expect(parseUnitFile(annotated).get("Service", "ExecStart")).toBe(
      parseUnitFile(text).get("Service", "ExecStart"),
    );
  });

  it.runIf(canVerifyUnits)("systemd-analyze verify accepts user and system units, without a warning", () => {
    // verify checks that ExecStart's program exists, so these point at real files, spaces and all.
    const dir = join(scope.tempDir(), "My Apps");
    mkdirSync(dir);
    const entry = join(dir, "phonework.js");
    const config = join(dir, "host 100%.yaml");
    writeFileSync(entry, "");
    writeFileSync(config, "");
    const argv = [process.execPath, entry, "host", "--config", config];
    const me = userInfo();
    const specs: ServiceSpec[] = [
      { ...userSpec, argv, workingDirectory: dir },
      {
        ...userSpec,
        argv,
        workingDirectory: dir,
        scope: "system",
        runAs: { user: me.username, group: String(me.gid) },
      },
    ];
    for (const [index, spec] of specs.entries()) {
      const unitDir = join(dir, `units-${index}`);
      mkdirSync(unitDir);
      const file = join(unitDir, "phonework-host.service");
      writeFileSync(file, annotateUnit(renderSystemdUnit(spec), ["a note"]));
      expect(verifyUnit(file)).toEqual({ status: 0, output: "" });
    }
  });
});
