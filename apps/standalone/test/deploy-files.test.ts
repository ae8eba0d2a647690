import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HostConfigFields } from "@phonework/host";
import { RouterConfigSchema } from "@phonework/router";
import { repoRoot } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// No Docker engine runs here, so the deploy files are checked statically: every path they
// name exists, and every setting they pass is a key the app's config schema knows.

interface ComposeService {
  build: { context: string; dockerfile: string };
  environment: Record<string, string>;
}

const compose = parse(readFileSync(join(repoRoot, "docker-compose.yml"), "utf8")) as {
  services: Record<string, ComposeService>;
};
const knownKeys: Record<string, string[]> = {
  router: Object.keys(RouterConfigSchema.shape),
  host: Object.keys(HostConfigFields.shape),
};

describe("docker-compose.yml and Dockerfiles", () => {
  it("has a router and a host service", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["host", "router"]);
  });

  for (const [name, service] of Object.entries(compose.services)) {
    const dockerfilePath = join(repoRoot, service.build.context, service.build.dockerfile);

    it(`${name}: the Dockerfile exists and everything it copies exists`, () => {
      expect(existsSync(dockerfilePath)).toBe(true);
      const dockerfile = readFileSync(dockerfilePath, "utf8");
      const sources = [...dockerfile.matchAll(/^COPY (.+) \S+$/gm)].flatMap((m) => (m[1] ?? "").split(" "));
      expect(sources.length).toBeGreaterThan(3);
      for (const source of sources) expect(existsSync(join(repoRoot, source)), source).toBe(true);
      expect(dockerfile).toContain(`--filter @phonework/${name}...`);
      expect(dockerfile).toMatch(/^USER node$/m);
      const entry = /WORKDIR \/app\/(\S+)\nCMD \["node", "--import", "tsx", "(\S+)"\]/.exec(dockerfile);
      expect(entry).not.toBeNull();
      expect(existsSync(join(repoRoot, entry?.[1] ?? "", entry?.[2] ?? ""))).toBe(true);
    });

    it(`${name}: every environment variable is a config key the app knows`, () => {
      const keys = Object.keys(service.environment);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(knownKeys[name], key).toContain(key);
    });
  }

  it("the router runs as a service: no stdin or terminal kept open for it", () => {
    const router = compose.services.router as ComposeService & Record<string, unknown>;
    expect(router).not.toHaveProperty("stdin_open");
    expect(router).not.toHaveProperty("tty");
    expect(router.environment.CHAT).toMatch(/^\$\{CHAT:-auto\}$/);
  });

  it("the host reaches the router by its service name on the node endpoint", () => {
    expect(compose.services.host?.environment.ROUTER_URL).toBe("ws://router:8000/ws/node");
  });

  it("shows the pairing flow: no shared secret anywhere, the host joins with a code", () => {
    for (const service of Object.values(compose.services))
      expect(Object.keys(service.environment)).not.toContain("ROUTER_SECRET");
    expect(compose.services.host?.environment.JOIN_CODE).toMatch(/^\$\{JOIN_CODE:-\}$/);
    expect(compose.services.host?.environment.ALLOW_INSECURE_TRANSPORT).toBe("1");
    const text = readFileSync(join(repoRoot, "docker-compose.yml"), "utf8");
    // The pairing command in the comment runs the router's own entry point inside its container.
    expect(text).toContain("docker compose exec router node --import tsx src/main.ts pair docker-host");
    expect(readFileSync(join(repoRoot, "apps/router/Dockerfile"), "utf8")).toMatch(
      /WORKDIR \/app\/apps\/router\nCMD \["node", "--import", "tsx", "src\/main.ts"\]/,
    );
  });

  it(".env.example names every variable docker-compose.yml reads, and nothing else", () => {
    const composeText = readFileSync(join(repoRoot, "docker-compose.yml"), "utf8");
    const used = [...new Set([...composeText.matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]))].sort();
    const example = readFileSync(join(repoRoot, ".env.example"), "utf8");
    const listed = [...example.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]).sort();
    expect(used.length).toBeGreaterThan(10);
    expect(listed).toEqual(used);
  });
});
