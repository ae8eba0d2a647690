import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HostConfigFields } from "@phonework/host";
import { RouterConfigFields } from "@phonework/router";
import { repoRoot } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// No Docker engine runs here, so the deploy files are checked statically: the images are built
// from the packed `phonework` in stages, the one that runs has no compilers and no sources, every
// path they copy exists, and every setting they pass is a key the app's config schema knows.

interface ComposeService {
  build: { context: string; dockerfile: string; args?: Record<string, string> };
  environment: Record<string, string>;
  volumes?: string[];
}

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  image: string;
  name: string | undefined;
  steps: Instruction[];
}

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");
const composeText = read("docker-compose.yml");
const compose = parse(composeText) as { services: Record<string, ComposeService> };
const knownKeys: Record<string, string[]> = {
  router: Object.keys(RouterConfigFields.shape),
  host: Object.keys(HostConfigFields.shape),
};

/** A Dockerfile's stages: continuation lines joined, comments dropped, one entry per FROM. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"));
  for (const line of lines) {
    const [, keyword = "", args = ""] = /^\s*(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword === "FROM") {
      const [image = "", as, name] = args.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === "AS" ? name : undefined, steps: [] });
    } else stages.at(-1)?.steps.push({ keyword, args: args.replace(/\s+/g, " ").trim() });
  }
  return stages;
}

const argsOf = (stage: Stage | undefined, keyword: string) =>
  (stage?.steps ?? []).filter((step) => step.keyword === keyword).map((step) => step.args);

/** The paths a `mkdir -p …` or a `chown node:node …` in the stage's RUN lines names. */
function pathsAfter(stage: Stage, command: string): string[] {
  return argsOf(stage, "RUN").flatMap((run) =>
    [...run.matchAll(new RegExp(`${command} ([^&;]+)`, "g"))].flatMap((m) => (m[1] ?? "").trim().split(" ")),
  );
}

describe("docker-compose.yml and Dockerfiles", () => {
  it("has a router and a host service", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["host", "router"]);
  });

  for (const [name, service] of Object.entries(compose.services)) {
    const dockerfilePath = join(service.build.context, service.build.dockerfile);
    const stages = existsSync(join(repoRoot, dockerfilePath)) ? parseDockerfile(read(dockerfilePath)) : [];
    const [pack, install, final] = [stages[0], stages[1], stages.at(-1)];

    it(`${name}: a multi-stage build: pack the workspace, npm install -g the tarball, run the install`, () => {
      expect(stages.map((stage) => stage.name)).toEqual(["pack", "install", undefined]);
      expect(argsOf(pack, "RUN")).toContain("pnpm package /pkg");
      expect(argsOf(install, "COPY")).toContain("--from=pack /pkg /pkg");
      expect(argsOf(install, "RUN")).toContain("npm install -g /pkg/phonework-*.tgz");
      expect(argsOf(install, "RUN").join("\n")).toMatch(/apt-get install .*python3 make g\+\+/);
      // The addon compiled in the install stage must load in the final one: the same base image.
      expect(final?.image).toBe(install?.image);
    });

    it(`${name}: everything it copies exists, in the context or in an earlier stage`, () => {
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

    it(`${name}: the final stage runs \`phonework ${name}\` as the node user, with no compilers or sources`, () => {
      if (!final) throw new Error(`no stages in ${dockerfilePath}`);
      expect(argsOf(final, "USER")).toEqual(["node"]);
      expect(argsOf(final, "CMD").map((cmd) => JSON.parse(cmd))).toEqual([["phonework", name]]);
      expect(argsOf(final, "COPY")).toEqual([
        "--from=install /usr/local/lib/node_modules/phonework /usr/local/lib/node_modules/phonework",
      ]);
      expect(argsOf(final, "RUN").join("\n")).toContain(
        "ln -s ../lib/node_modules/phonework/dist/phonework.js /usr/local/bin/phonework",
      );
      const runs = argsOf(final, "RUN").join("\n");
      expect(runs).not.toMatch(/\b(python3|make|g\+\+|gcc|build-essential|pnpm|tsx)\b/);
      // The user is set after the last root step, so everything the image adds belongs to root.
      expect(final.steps.findLastIndex((step) => step.keyword === "RUN")).toBeLessThan(
        final.steps.findIndex((step) => step.keyword === "USER"),
      );
    });

    it(`${name}: every volume is created and given to the node user before it is declared`, () => {
      if (!final) throw new Error(`no stages in ${dockerfilePath}`);
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

    it(`${name}: every build argument compose passes is an ARG of the Dockerfile`, () => {
      const declared = stages.flatMap((stage) => argsOf(stage, "ARG")).map((arg) => arg.split("=")[0]);
      for (const arg of Object.keys(service.build.args ?? {})) expect(declared, arg).toContain(arg);
    });
  }

  it("the host image installs no coding CLI unless asked: it advertises only the ones it has", () => {
    const host = parseDockerfile(read("apps/host/Dockerfile")).at(-1);
    expect(argsOf(host, "ARG")).toContain('CODING_CLIS=""');
    expect(argsOf(host, "RUN").join("\n")).toMatch(
      /if \[ -n "\$CODING_CLIS" \]; then .*npm install -g \$CODING_CLIS/,
    );
    expect(compose.services.host?.build.args?.CODING_CLIS).toMatch(/^\$\{CODING_CLIS:-\}$/);
  });

  it("the host image has bubblewrap and SANDBOX=on; compose lets bwrap build its sandbox, adding no capability", () => {
    const host = parseDockerfile(read("apps/host/Dockerfile")).at(-1);
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
