import type { ChatChoice } from "@phonework/router";
import { ConfigError, type ConfigSource, loadConfig } from "@phonework/runtime";
import type { CheckPrinter } from "./check-printer.ts";
import { checkAdmins } from "./checks/admins.ts";
import { checkStandaloneChat } from "./checks/chat-platform.ts";
import { checkDataDirAndConfig, dataDirSource, skippedForConfig } from "./config-stage.ts";
import type { DoctorContext } from "./doctor-context.ts";
import { hostLocalChecks } from "./host-doctor.ts";
import { routerListenChecks } from "./router-doctor.ts";

// `phonework doctor standalone`: the router's and the host's checks on this machine; the host
// dials its own router over loopback, so there is no link to check.

export async function doctorStandalone(
  source: ConfigSource,
  ctx: DoctorContext,
  printer: CheckPrinter,
): Promise<void> {
  const [{ StandaloneConfigSchema, standaloneChat }, { RouterConfigFields }] = await Promise.all([
    import("@phonework/standalone"),
    import("@phonework/router"),
  ]);
  const config = checkDataDirAndConfig(
    {
      dataDir: () =>
        loadConfig(RouterConfigFields.pick({ DATA_DIR: true }), dataDirSource(source)).config.DATA_DIR,
      config: () => loadConfig(StandaloneConfigSchema, source),
    },
    printer,
  );
  if (!config) {
    printer.print(skippedForConfig(["port", "chat", "WORKING_DIR", "sandbox", "claude", "codex", "model"]));
    return;
  }
  await routerListenChecks(config, ctx, printer);
  printer.print(await checkStandaloneChat(config, ctx));
  if (servesPlatforms(() => standaloneChat(config)))
    printer.print(checkAdmins(config.ADMINS, config.ALLOWED_USERS));
  await hostLocalChecks(config, ctx, printer);
}

/** Whether a chat platform is served; a chat config the router refuses serves none (the chat check said why). */
function servesPlatforms(choose: () => ChatChoice): boolean {
  try {
    return choose().platforms.length > 0;
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}
