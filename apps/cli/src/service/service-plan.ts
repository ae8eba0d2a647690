import { dirname } from "node:path";
import type { AppName } from "../programs/app-name.ts";
import { launchCommand } from "./launch-command.ts";
import { type ServiceScope, type ServiceSpec, servicePath } from "./service-spec.ts";
import type { ServiceUser } from "./service-user.ts";

// What `service install` would install, from the command line and this process, and the notes a
// person should read before relying on it.

export interface ServicePlan {
  spec: ServiceSpec;
  notes: string[];
}

export function planService(inputs: {
  app: AppName;
  scope: ServiceScope;
  configPath: string | undefined;
  /** The program's key flags given to `service install`, baked in after the config file. */
  flags: readonly string[];
  env: NodeJS.ProcessEnv;
  execPath: string;
  entry: string | undefined;
  cwd: string;
  user: ServiceUser;
}): ServicePlan {
  const { app, env, user } = inputs;
  const notes: string[] = [];
  // The service will not see this shell's environment, so a PHONEWORK_CONFIG here is baked in.
  const fromEnv = inputs.configPath === undefined && Boolean(env.PHONEWORK_CONFIG);
  const launch = launchCommand({
    app,
    execPath: inputs.execPath,
    entry: inputs.entry,
    configPath: inputs.configPath ?? (env.PHONEWORK_CONFIG || undefined),
    flags: inputs.flags,
    cwd: inputs.cwd,
  });
  if (fromEnv) notes.push(`the config file is PHONEWORK_CONFIG's: ${launch.configPath}`);
  if (launch.configPath === undefined)
    notes.push(
      inputs.flags.length > 0
        ? "no --config: the service runs with the flags given and the defaults; it sees none of this shell's environment but PATH"
        : "no --config and no flags: the service runs on the defaults; it sees none of this shell's settings but PATH (`phonework " +
            `${app} --save-config <file>\` saves the settings you run it with)`,
    );
  if (launch.fromSource)
    notes.push(
      `it runs this source checkout through tsx (${launch.argv[3]}); an installed phonework package makes a steadier service`,
    );
  if (app === "standalone")
    notes.push(
      "standalone as a service has no terminal to chat on: it is only useful with a chat platform configured",
    );
  if (user.viaSudo)
    notes.push(
      `PATH is sudo's; to bake in yours: sudo env "PATH=$PATH" phonework service install ${app} --system`,
    );
  const spec: ServiceSpec = {
    app,
    argv: launch.argv,
    path: servicePath(env.PATH, dirname(inputs.execPath)),
    workingDirectory: user.home,
    scope: inputs.scope,
    ...(inputs.scope === "system" ? { runAs: { user: user.name, group: user.group } } : {}),
  };
  return { spec, notes };
}
