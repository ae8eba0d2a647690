import type { CommandRunner } from "./command-runner.ts";
import { ServiceError } from "./service-error.ts";

// Whom a service is for. A system unit is installed with sudo, but meant for the person who typed
// it: under sudo that is SUDO_USER (with their home), not root.

export interface ServiceUser {
  name: string;
  /** The primary group, as a number (systemd's Group= takes one). */
  group: string;
  uid: number;
  home: string;
  /** Installing under sudo for SUDO_USER. */
  viaSudo: boolean;
}

export interface WhoAmI {
  username: string;
  uid: number;
  gid: number;
}

export async function serviceUser(deps: {
  forSystemUnit: boolean;
  env: NodeJS.ProcessEnv;
  whoami: WhoAmI;
  home: string;
  runner: CommandRunner;
}): Promise<ServiceUser> {
  const { env, whoami } = deps;
  const sudoUser = env.SUDO_USER;
  if (!deps.forSystemUnit || whoami.uid !== 0 || !sudoUser || sudoUser === "root") {
    return {
      name: whoami.username,
      group: String(whoami.gid),
      uid: whoami.uid,
      home: deps.home,
      viaSudo: false,
    };
  }
  // getent, not /etc/passwd: the user may come from LDAP or another NSS source.
  const entry = await deps.runner("getent", ["passwd", sudoUser]);
  const fields = entry.stdout.trim().split(":");
  const home = fields[5];
  if (entry.code !== 0 || !home)
    throw new ServiceError(`cannot find ${sudoUser}'s home directory (getent passwd)`);
  return {
    name: sudoUser,
    group: env.SUDO_GID ?? fields[3] ?? "",
    uid: Number(env.SUDO_UID ?? fields[2]),
    home,
    viaSudo: true,
  };
}
