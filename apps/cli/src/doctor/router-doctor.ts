import type { RouterConfig } from "@phonework/router";
import { type ConfigSource, loadConfig } from "@phonework/runtime";
import type { CheckPrinter } from "./check-printer.ts";
import { checkAdmins } from "./checks/admins.ts";
import { checkRouterChat } from "./checks/chat-platform.ts";
import { checkNodeSignatures } from "./checks/node-signatures.ts";
import { checkRouterCertificate } from "./checks/router-cert.ts";
import { checkRouterPort } from "./checks/router-port.ts";
import { checkDataDirAndConfig, dataDirSource, skippedForConfig } from "./config-stage.ts";
import type { DoctorContext } from "./doctor-context.ts";

// `phonework doctor router`: can it listen, does the chat platform take its credentials, is
// someone its admin.

export async function doctorRouter(
  source: ConfigSource,
  ctx: DoctorContext,
  printer: CheckPrinter,
): Promise<void> {
  const { RouterConfigFields, RouterConfigSchema } = await import("@phonework/router");
  const config = checkDataDirAndConfig(
    {
      dataDir: () =>
        loadConfig(RouterConfigFields.pick({ DATA_DIR: true }), dataDirSource(source)).config.DATA_DIR,
      config: () => loadConfig(RouterConfigSchema, source),
    },
    printer,
  );
  if (!config) {
    printer.print(skippedForConfig(["port", "chat", "ADMINS"]));
    return;
  }
  await routerListenChecks(config, ctx, printer);
  printer.print(checkNodeSignatures(await import("@phonework/router")));
  printer.print(await checkRouterChat(config, ctx));
  printer.print(checkAdmins(config.ADMINS, config.ALLOWED_USERS));
}

/** Where the router listens: also the standalone's router half. */
export async function routerListenChecks(
  config: Pick<RouterConfig, "ROUTER_HOST" | "ROUTER_PORT" | "TLS_CERT_FILE" | "TLS_KEY_FILE">,
  ctx: DoctorContext,
  printer: CheckPrinter,
): Promise<void> {
  printer.print(
    await checkRouterPort(config.ROUTER_HOST, config.ROUTER_PORT, {
      tls: Boolean(config.TLS_CERT_FILE),
      timeoutMs: ctx.timeoutMs,
    }),
  );
  if (config.TLS_CERT_FILE && config.TLS_KEY_FILE)
    printer.print(checkRouterCertificate(config.TLS_CERT_FILE, config.TLS_KEY_FILE, ctx.clock.now()));
}
