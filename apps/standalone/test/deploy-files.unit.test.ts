import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HostConfigFields } from "@phonework/host";
import { RouterConfigFields } from "@phonework/router";
import { repoRoot } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { composeProblems, dockerfileProblems, dockerfileStages, type Stage } from "./deploy-lint.ts";

// No Docker engine runs here, so the deploy files are checked statically: one Dockerfile whose
// `router` and `host` targets share the stages that pack `phonework` and npm-install it, on Node 24,
// with no compiler anywhere; the lint and the compose schema stand in for `docker build --check`
// and `docker compose config` (deploy-lint.ts); every path copied exists, and every setting passed
// is a key the app's config schema knows.

interface ComposeService {
  build: { context: string; dockerfile?: string; target?: string; args?: Record<string, string> };
  environment: Record<string, string>;
  volumes?: string[];
}

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");
const composeText = read("docker-compose.yml");
const compose = parse(composeText) as { services: Record<string, ComposeService> };
const dockerfileText = read("Dockerfile");
const stages = dockerfileStages(dockerfileText);
const stageNamed = (name: string): Stage => {
  const stage = stages.find((candidate) => candidate.name === name);
  if (!stage) throw new Error(`no stage ${name} in the Dockerfile`);
  return stage;
};
const knownKeys: Record<string, string[]> = {
  router: Object.keys(RouterConfigFields.shape),
  host: Object.keys(HostConfigFields.shape),
};

const argsOf = (stage: Stage | undefined, keyword: string) =>
  (stage?.steps ?? []).filter((step) => step.keyword === keyword).map((step) => step.args);

/** The paths a `mkdir -p …` or a `chown node:node …` in the stage's RUN lines names. */
function pathsAfter(stage: Stage, command: string): string[] {
  return argsOf(stage, "RUN").flatMap((run) =>
    [...run.matchAll(new RegExp(`${command} ([^&;]+)`, "g"))].flatMap((m) => (m[1] ?? "").trim().split(" ")),
  );
}

const COMPILERS = /\b(python3?|make|g\+\+|gcc|clang|build-essential|node-gyp)\b/;

describe("the Dockerfile: two targets, one build", () => {
  it("lints clean, and every stage, COPY --from and ARG it refers to exists before it", () => {
    expect(dockerfileProblems(dockerfileText)).toEqual([]);
    // The checks have teeth: each mistake in this one is named.
    const broken = read("apps/standalone/test/fixtures/broken.Dockerfile");
    expect(dockerfileProblems(broken)).toEqual([
      expect.stringMatching(/^line 3: .*\$\{NOPE\}/),
      "line 5: Unknown flag: form",
      "line 3: FROM uses $NOPE, which no ARG or ENV before it declares",
      expect.stringMatching(/^line 3: FROM \$\{NOPE\}: no earlier stage/),
      "line 4: COPY --from=onee: no earlier stage has that name",
      "line 6: RUN uses $UNDECLARED, which no ARG or ENV before it declares",
    ]);
  });

  it("everything it copies exists, in the build context or in an earlier stage", () => {
    const stageNames = stages.map((stage) => stage.name);
    for (const [index, stage] of stages.entries()) {
      for (const copy of argsOf(stage, "COPY")) {
        const parts = copy.split(" ");
        const from = /^--from=(\S+)$/.exec(parts[0] ?? "")?.[1];
        if (from) expect(stageNames.slice(0, index), copy).toContain(from);
        else
          for (const source of parts.slice(0, -1))
            expect(existsSync(join(repoRoot, source)), source).toBe(true);
      }
    }
  });

  it("one pack stage and one install stage, shared by the router and host targets", () => {
    expect(stages.map((stage) => stage.name)).toEqual(["pack", "install", "router", "host"]);
    const packing = stages.filter((stage) => argsOf(stage, "RUN").includes("pnpm package /pkg"));
    expect(packing.map((stage) => stage.name)).toEqual(["pack"]);
    const installing = stages.filter((stage) =>
      argsOf(stage, "RUN").some((run) => run.includes("npm install -g /pkg/")),
    );
    expect(installing.map((stage) => stage.name)).toEqual(["install"]);
    expect(argsOf(stageNamed("install"), "COPY")).toEqual(["--from=pack /pkg /pkg"]);
    expect(argsOf(stageNamed("install"), "RUN")).toEqual(["npm install -g /pkg/phonework-*.tgz"]);
    // Both services build this one file from one context, so the shared stages are built once.
    for (const service of Object.values(compose.services)) {
      expect(service.build.context).toBe(".");
      expect(service.build.dockerfile ?? "Dockerfile").toBe("Dockerfile");
    }
  });

  it("every stage is Node 24 on one base, so the package is installed where it runs", () => {
    for (const stage of stages) {
      expect(stage.image, stage.name).toMatch(/^\$\{NODE_IMAGE\}$/);
      expect(stage.baseImage, stage.name).toBe("node:24-bookworm-slim");
    }
  });

  it("no stage installs a compiler: every native part comes prebuilt", () => {
    for (const stage of stages)
      for (const run of argsOf(stage, "RUN")) expect(run, `${stage.name}: ${run}`).not.toMatch(COMPILERS);
  });
});

describe("docker-compose.yml and the Dockerfile", () => {
  it("is valid Compose: interpolated as compose does, it matches the Compose Specification's schema", () => {
    expect(composeProblems(composeText)).toEqual([]);
    const broken = read("apps/standalone/test/fixtures/broken-compose.yml");
    expect(composeProblems(broken)).toEqual([
      expect.stringMatching(/^cannot interpolate \$\{A:\?need\}$/),
      expect.stringContaining('"additionalProperty":"buidl"'),
      expect.stringMatching(/^\/services\/a\/security_opt: must be array/),
    ]);
  });

  it("has a router and a host service", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["host", "router"]);
  });

  for (const [name, service] of Object.entries(compose.services)) {
    const final = stages.find((stage) => stage.name === service.build.target);

    it(`${name}: built from the Dockerfile's \`${name}\` target, which installs nothing itself`, () => {
      expect(service.build.target).toBe(name);
      expect(final).toBeDefined();
      expect(argsOf(final, "COPY")).toEqual([
        "--from=install /usr/local/lib/node_modules/phonework /usr/local/lib/node_modules/phonework",
      ]);
    });

    it(`${name}: the target runs \`phonework ${name}\` as the node user, with no compilers or sources`, () => {
      if (!final) throw new Error(`no target ${name} in the Dockerfile`);
      expect(argsOf(final, "USER")).toEqual(["node"]);
      expect(argsOf(final, "CMD").map((cmd) => JSON.parse(cmd))).toEqual([["phonework", name]]);
      expect(argsOf(final, "RUN").join("\n")).toContain(
        "ln -s ../lib/node_modules/phonework/dist/phonework.js /usr/local/bin/phonework",
      );
      expect(argsOf(final, "RUN").join("\n")).not.toMatch(/\b(pnpm|tsx)\b/);
      // The user is set after the last root step, so everything the image adds belongs to root.
      expect(final.steps.findLastIndex((step) => step.keyword === "RUN")).toBeLessThan(
        final.steps.findIndex((step) => step.keyword === "USER"),
      );
    });

    it(`${name}: every volume is created and given to the node user before it is declared`, () => {
      if (!final) throw new Error(`no target ${name} in the Dockerfile`);
      const volumes = argsOf(final, "VOLUME");
      expect(volumes.length).toBeGreaterThan(0);
      const created = pathsAfter(final, "mkdir -p");
      const owned = pathsAfter(final, "chown node:node");
      for (const volume of volumes) {
        expect(created, volume).toContain(volume);
        expect(owned, volume).toContain(volume);
      }
      const firstVolume = final.steps.findIndex((step) => step.keyword === "VOLUME");
      const chownAt = final.steps.findIndex((step) => step.args.includes("chown node:node"));
      expect(chownAt).toBeLessThan(firstVolume);
      expect(argsOf(final, "ENV").join(" ")).toContain("DATA_DIR=/data");
      if (name === "host") expect(argsOf(final, "ENV").join(" ")).toContain("WORKING_DIR=/work");
    });

    it(`${name}: every environment variable is a config key the app knows`, () => {
      const keys = Object.keys(service.environment);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(knownKeys[name], key).toContain(key);
      const imageKeys = argsOf(final, "ENV").flatMap((env) => [...env.matchAll(/(\w+)=/g)].map((m) => m[1]));
      for (const key of imageKeys) if (key !== "NODE_ENV") expect(knownKeys[name], key).toContain(key);
    });

    it(`${name}: every build argument compose passes is an ARG of its target`, () => {
      // A global ARG (before the first FROM) reaches only FROM lines: the target must declare its own.
      const declared = argsOf(final, "ARG").map((arg) => arg.split("=")[0]);
      for (const arg of Object.keys(service.build.args ?? {})) expect(declared, arg).toContain(arg);
    });
  }

  it("the host image installs no coding CLI unless asked: it advertises only the ones it has", () => {
    const host = stageNamed("host");
    expect(argsOf(host, "ARG")).toContain('CODING_CLIS=""');
    expect(argsOf(host, "RUN").join("\n")).toMatch(
      /if \[ -n "\$CODING_CLIS" \]; then .*npm install -g \$CODING_CLIS/,
    );
    expect(compose.services.host?.build.args?.CODING_CLIS).toMatch(/^\$\{CODING_CLIS:-\}$/);
  });

  it("the host image has bubblewrap and SANDBOX=on; compose lets bwrap build its sandbox, adding no capability", () => {
    const host = stageNamed("host");
    expect(argsOf(host, "RUN").join("\n")).toMatch(/apt-get install -y --no-install-recommends bubblewrap\b/);
    expect(argsOf(host, "ENV").join(" ")).toMatch(/\bSANDBOX=on\b/);
    const service = compose.services.host as ComposeService & Record<string, unknown>;
    expect(service.environment.SANDBOX).toMatch(/^\$\{SANDBOX:-on\}$/);
    // Docker's seccomp profile refuses the user namespace, its AppArmor profile the mounts, and its
    // masks over /proc the fresh /proc bwrap mounts for the command's pid namespace.
    expect(service.security_opt).toEqual([
      "seccomp=unconfined",
      "apparmor=unconfined",
      "systempaths=unconfined",
    ]);
    for (const key of ["cap_add", "privileged", "user", "userns_mode"])
      expect(service).not.toHaveProperty(key);
    expect(compose.services.router).not.toHaveProperty("security_opt");
  });

  it("the router runs as a service: no stdin or terminal kept open for it", () => {
    const router = compose.services.router as ComposeService & Record<string, unknown>;
    expect(router).not.toHaveProperty("stdin_open");
    expect(router).not.toHaveProperty("tty");
    expect(router.environment.CHAT).toMatch(/^\$\{CHAT:-auto\}$/);
  });

  it("the host reaches the router by its service name on the node endpoint", () => {
    expect(compose.services.host?.environment.ROUTER_URL).toBe("ws://router:8000/ws/node");
    expect(compose.services.host?.volumes?.some((volume) => volume.endsWith(":/work"))).toBe(true);
  });

  it("shows the pairing flow: no shared secret anywhere, the host joins with a code", () => {
    for (const service of Object.values(compose.services))
      expect(Object.keys(service.environment)).not.toContain("ROUTER_SECRET");
    expect(compose.services.host?.environment.JOIN_CODE).toMatch(/^\$\{JOIN_CODE:-\}$/);
    expect(compose.services.host?.environment.ALLOW_INSECURE_TRANSPORT).toBe("1");
    // The pairing command in the comment runs the installed executable inside the router's container.
    expect(composeText).toContain("docker compose exec router phonework pair docker-host");
    expect(read(".env.example")).toContain("docker compose exec router phonework pair docker-host");
    expect(`${composeText}\n${read(".env.example")}`).not.toMatch(/--import tsx|src\/main\.ts/);
  });

  it(".env.example names every variable docker-compose.yml reads, and nothing else", () => {
    const used = [...new Set([...composeText.matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]))].sort();
    const listed = [...read(".env.example").matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]).sort();
    expect(used.length).toBeGreaterThan(10);
    expect(listed).toEqual(used);
  });

  it(".dockerignore keeps secrets, installed packages and build output out of the build context", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"));
    for (const entry of ["**/node_modules", "**/dist", ".git", ".env", "**/.data"])
      expect(ignored, entry).toContain(entry);
  });
});
