import { addConfigSecrets, type ProgramArgs, SecretValues } from "@phonework/runtime";
import type { AppName } from "../programs/app-name.ts";
import { CheckPrinter } from "./check-printer.ts";
import { checkNodeVersion } from "./checks/node-version.ts";
import { type DoctorDeps, defaultDoctorDeps } from "./doctor-context.ts";

// `phonework doctor [router|host|standalone]`: one line per check, ✅ ⚠️ or ❌ with the fix, and
// the number of ❌ as the exit code. Each app's checks load only that app.

export interface DoctorOptions {
  app: AppName;
  args: ProgramArgs;
  offline: boolean;
  env: NodeJS.ProcessEnv;
  out: NodeJS.WritableStream;
}

/** Returns the number of ❌. */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  return doctor(options, defaultDoctorDeps());
}

export async function doctor(options: DoctorOptions, deps: DoctorDeps): Promise<number> {
  // Secret-named values from the environment and the flags are known before any config loads.
  const secrets = new SecretValues();
  addConfigSecrets(secrets, options.env);
  addConfigSecrets(secrets, options.args.overrides ?? {});
  const printer = new CheckPrinter(options.out, secrets);
  const ctx = { ...deps, offline: options.offline, env: options.env };
  const source = { ...options.args, env: options.env };

  printer.print(checkNodeVersion(deps.nodeVersion));
  printer.print(await deps.checkpoints());
  if (options.app === "host") await (await import("./host-doctor.ts")).doctorHost(source, ctx, printer);
  else if (options.app === "router")
    await (await import("./router-doctor.ts")).doctorRouter(source, ctx, printer);
  else await (await import("./standalone-doctor.ts")).doctorStandalone(source, ctx, printer);
  printer.printSummary();
  return printer.failures;
}
