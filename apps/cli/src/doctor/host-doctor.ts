import type { HostConfig } from "@phonework/host";
import { type ConfigSource, loadConfig, withoutPackageManager } from "@phonework/runtime";
import type { CheckPrinter } from "./check-printer.ts";
import { type Check, skipped } from "./checks/check.ts";
import { checkCodingCli, codingClis } from "./checks/coding-cli.ts";
import { checkModelEndpoint } from "./checks/model-endpoint.ts";
import { checkNodeKey, hostCredentials, untriedNodeKey } from "./checks/node-key.ts";
import { type RouterAddress, routerAddress } from "./checks/router-address.ts";
import { checkRouterReachable } from "./checks/router-reach.ts";
import { checkRouterTls, plaintextCheck, readRouterTls } from "./checks/router-tls.ts";
import { checkSandbox } from "./checks/sandbox.ts";
import { checkWorkingDir } from "./checks/working-dir.ts";
import { checkDataDirAndConfig, dataDirSource, skippedForConfig } from "./config-stage.ts";
import type { DoctorContext } from "./doctor-context.ts";

// `phonework doctor host`: the link to the router (reachable, TLS, the node key in a dry
// handshake), then what the host does its work with.

export async function doctorHost(
  source: ConfigSource,
  ctx: DoctorContext,
  printer: CheckPrinter,
): Promise<void> {
  const { HostConfigFields, HostConfigSchema } = await import("@phonework/host");
  const config = checkDataDirAndConfig(
    {
      dataDir: () =>
        loadConfig(HostConfigFields.pick({ DATA_DIR: true }), dataDirSource(source)).config.DATA_DIR,
      config: () => loadConfig(HostConfigSchema, source),
    },
    printer,
  );
  if (!config) {
    printer.print(
      skippedForConfig([
        "router",
        "router TLS",
        "node key",
        "WORKING_DIR",
        "sandbox",
        "claude",
        "codex",
        "model",
      ]),
    );
    return;
  }
  await routerLinkChecks(config, ctx, printer);
  await hostLocalChecks(config, ctx, printer);
}

async function routerLinkChecks(
  config: HostConfig,
  ctx: DoctorContext,
  printer: CheckPrinter,
): Promise<void> {
  const address = routerAddress(config.ROUTER_URL);
  const credentials = hostCredentials(config);
  if (ctx.offline) {
    printer.print(skipped("router", "--offline"));
    printer.print(address.secure ? skipped("router TLS", "--offline") : plaintextCheck(address));
    printer.print(credentials.ok ? untriedNodeKey(credentials, "--offline") : credentials.check);
    return;
  }
  const reach = await checkRouterReachable(address, ctx.timeoutMs);
  printer.print(reach);
  const trust = readRouterTls(config);
  const tls = await tlsCheck(address, trust, reach, config, ctx);
  printer.print(tls);
  if (!credentials.ok) printer.print(credentials.check);
  else if ("problem" in trust || tls.status === "fail" || reach.status === "fail")
    printer.print(
      untriedNodeKey(credentials, reach.status === "fail" ? "the router is not reachable" : "TLS failed"),
    );
  else
    printer.print(
      await checkNodeKey(credentials, { url: config.ROUTER_URL, tls: trust.tls, timeoutMs: ctx.timeoutMs }),
    );
}

async function tlsCheck(
  address: RouterAddress,
  trust: ReturnType<typeof readRouterTls>,
  reach: Check,
  config: HostConfig,
  ctx: DoctorContext,
): Promise<Check> {
  if ("problem" in trust) return trust.problem;
  if (!address.secure) return plaintextCheck(address);
  if (reach.status === "fail") return skipped("router TLS", "the router is not reachable");
  return checkRouterTls(address, trust.tls, {
    caFile: config.ROUTER_CA_FILE,
    timeoutMs: ctx.timeoutMs,
    now: ctx.clock.now(),
  });
}

/** What a host needs on its own machine: also the standalone's host half. */
export async function hostLocalChecks(
  config: Pick<
    HostConfig,
    | "WORKING_DIR"
    | "SANDBOX"
    | "SANDBOX_NETWORK"
    | "CLAUDE_BIN"
    | "CODEX_BIN"
    | "OPENAI_API_KEY"
    | "OPENAI_BASE_URL"
    | "OPENAI_MODEL"
  >,
  ctx: DoctorContext,
  printer: CheckPrinter,
): Promise<void> {
  printer.print(checkWorkingDir(config.WORKING_DIR));
  // The host runs its CLIs without what a package manager added to PATH (`pnpm host`).
  const env = withoutPackageManager(ctx.env);
  printer.print(checkSandbox(config, env));
  for (const cli of codingClis(config)) printer.print(await checkCodingCli(cli, env, ctx.timeoutMs));
  printer.print(await checkModelEndpoint(config, { offline: ctx.offline, timeoutMs: ctx.modelTimeoutMs }));
}
