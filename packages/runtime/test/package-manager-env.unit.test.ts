import { describe, expect, it } from "vitest";
import { leavePackageManagerEnvironment, withoutPackageManager } from "../src/index.ts";

// What `pnpm host` puts in front of the user's PATH (pnpm 9 and npm 11, as seen on this machine).
const REPO_BINS = [
  "/home/me/phonework/node_modules/.bin",
  "/home/me/phonework/apps/host/node_modules/.bin",
  "/usr/lib/node_modules/pnpm/dist/node-gyp-bin",
];
const USER_PATH = ["/home/me/.local/bin", "/usr/local/bin", "/usr/bin", "/bin"];

describe("the environment a host's commands get", () => {
  const underPnpm = {
    PATH: [...REPO_BINS, ...USER_PATH].join(":"),
    HOME: "/home/me",
    npm_lifecycle_event: "host",
    npm_config_user_agent: "pnpm/9.15.9 npm/? node/v20.20.2 linux x64",
    npm_package_name: "phonework-workspace",
    PNPM_SCRIPT_SRC_DIR: "/home/me/phonework",
    INIT_CWD: "/home/me/projects",
    OPENAI_API_KEY: "sk-user",
  };

  it("started by pnpm: the repo's bins and the npm_* variables are gone, the user's PATH and keys stay", () => {
    const env = withoutPackageManager(underPnpm);
    expect(env.PATH).toBe(USER_PATH.join(":"));
    expect(Object.keys(env).sort()).toEqual(["HOME", "OPENAI_API_KEY", "PATH"]);
  });

  it("not started by a package manager: a node_modules/.bin the user put on PATH is theirs", () => {
    const own = { PATH: `/home/me/tools/node_modules/.bin:${USER_PATH.join(":")}`, HOME: "/home/me" };
    expect(withoutPackageManager(own)).toBe(own);
  });

  it("changes this process's environment in place (children inherit it)", () => {
    const env: NodeJS.ProcessEnv = { ...underPnpm };
    leavePackageManagerEnvironment(env);
    expect(env).toEqual({ PATH: USER_PATH.join(":"), HOME: "/home/me", OPENAI_API_KEY: "sk-user" });
  });
});
