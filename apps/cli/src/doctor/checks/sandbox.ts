import { probeSandbox } from "@phonework/host";
import { type Check, fail, ok, warn } from "./check.ts";

// The sandbox the host's commands run in: tried the way the host tries it at start (one trivial
// bwrap run), so a bwrap that is installed but cannot create namespaces here shows up too. When it
// is off the line says so and why, in the words of the host's start line ("off: <why>").

export interface SandboxKeys {
  SANDBOX: "auto" | "on" | "off";
  SANDBOX_NETWORK: "on" | "off";
}

const FIX =
  "install bubblewrap (apt-get install bubblewrap) and make sure unprivileged user namespaces are allowed (in Docker: the host service's security_opt in docker-compose.yml)";

export function checkSandbox(config: SandboxKeys, env: NodeJS.ProcessEnv): Check {
  if (config.SANDBOX === "off")
    return warn(
      "sandbox",
      "off (SANDBOX=off): commands run with this user's full rights",
      "set SANDBOX=auto to use bubblewrap where it works",
    );
  const probe = probeSandbox({ path: env.PATH, network: config.SANDBOX_NETWORK });
  if (probe.ok)
    return ok("sandbox", `active: ${probe.version} (${probe.bwrap}), network ${config.SANDBOX_NETWORK}`);
  if (config.SANDBOX === "on")
    return fail("sandbox", `SANDBOX=on, but ${probe.reason}: the host will not start`, FIX);
  return warn(
    "sandbox",
    `off: ${probe.reason}; commands run unsandboxed, with this user's full rights (SANDBOX=auto)`,
    FIX,
  );
}
