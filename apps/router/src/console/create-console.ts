import { existsSync } from "node:fs";
import type { Agent } from "node:https";
import type { Socket } from "node:net";
import { join } from "node:path";
import type { Clock, Logger, SqliteDatabase } from "@phonework/runtime";
import { isLoopbackHost } from "@phonework/runtime";
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import type { AccessPolicy } from "../access/adapter-access.ts";
import type { Admins } from "../access/admins.ts";
import type { RouterConfig } from "../config/router-config.ts";
import { webPushSubject } from "../config/web-push-subject.ts";
import { splitQualified } from "../ids/qualified-id.ts";
import type { NodeConnection } from "../node-link/node-connection.ts";
import type { UpgradeJudge } from "../node-link/upgrade-gate.ts";
import { OverviewRelay } from "../overview/overview-relay.ts";
import type { PlatformAdapter } from "../platforms/platform-adapter.ts";
import type { NodeRegistry } from "../registry/node-registry.ts";
import { TerminalRelay } from "../terminals/terminal-relay.ts";
import { consoleAccess } from "./console-access.ts";
import { type ConsoleAdapter, createConsoleAdapter } from "./console-adapter.ts";
import { CONSOLE_ENTRY, consoleAssetsDir } from "./console-assets.ts";
import { ConsoleCloseCode } from "./console-close-codes.ts";
import { ConsoleCommand } from "./console-command.ts";
import { CONSOLE_FEED_LIMITS, ConsoleFeed } from "./console-feed.ts";
import { ConsoleHistory } from "./console-history.ts";
import { ConsolePage } from "./console-page.ts";
import { CONSOLE_WS_PATH, registerConsoleRoutes, sessionOf } from "./console-routes.ts";
import { type ConsoleSession, ConsoleSessions } from "./console-sessions.ts";
import { consoleUpgradeJudge } from "./console-upgrade.ts";
import { LoginCodeAttempts } from "./login-code-attempts.ts";
import { LoginLinks } from "./login-links.ts";
import { PushAlerts } from "./push/push-alerts.ts";
import { registerPushRoutes } from "./push/push-routes.ts";
import { PushSender } from "./push/push-sender.ts";
import { PushStore } from "./push/push-store.ts";

// Composition root of the web console: its stores in router.db, its chat adapter, the terminal
// relay, the open pages, and the HTTP routes. The router wires the pieces it exposes.

export interface ConsoleDeps {
  db: SqliteDatabase;
  registry: NodeRegistry<NodeConnection>;
  /** The router's chat adapters: a console user is one of theirs, by their rules. */
  chats: readonly PlatformAdapter[];
  accessFor: (adapter: PlatformAdapter) => AccessPolicy;
  admins: Admins;
  clock: Clock;
  logger: Logger;
  /** The router's listen address, once it listens (links use PUBLIC_URL when set). */
  listenUrl: () => string | undefined;
  tls: boolean;
  /** The built page; default: found beside the code (consoleAssetsDir). */
  assetsDir?: string;
  /** Told every login code minted, so the logger redacts it. */
  onSecret?: (code: string) => void;
  /** Told the connection of each signed-in page's socket (the front door stops counting it). */
  vouch?: (socket: Socket) => void;
  /** How pushes reach the push services (tests: one trusting the fake service's CA). */
  pushAgent?: Agent;
}

export interface WebConsole {
  readonly adapter: ConsoleAdapter;
  /** The policy the console's chat intake applies. */
  readonly access: AccessPolicy;
  readonly command: ConsoleCommand;
  readonly terminals: TerminalRelay;
  readonly overviews: OverviewRelay;
  /** News for users' phones (Web Push), unless a page of theirs is watching. */
  readonly alerts: PushAlerts;
  readonly upgradeJudges: ReadonlyMap<string, UpgradeJudge>;
  /** Registers the routes (in their own scope, after the WebSocket plugin). */
  register(app: FastifyInstance): void;
}

/**
 * The console when it is on (CONSOLE) and there is a chat to ask it from: it is one more chat
 * adapter, for the users of the others, so with none nobody could sign in.
 */
export function consoleFor(
  config: RouterConfig,
  chats: readonly PlatformAdapter[],
  deps: ConsoleDeps,
): WebConsole | undefined {
  return config.CONSOLE === "on" && chats.length > 0 ? createConsole(config, deps) : undefined;
}

export function createConsole(config: RouterConfig, deps: ConsoleDeps): WebConsole {
  const logger = deps.logger.child({ component: "console" });
  const now = () => deps.clock.now();
  const assetsDir = deps.assetsDir ?? consoleAssetsDir();
  const links = new LoginLinks(deps.db, config.CONSOLE_LINK_TTL_S * 1000, now);
  const sessions = new ConsoleSessions(deps.db, config.CONSOLE_SESSION_TTL_S * 1000, now);
  const access = consoleAccess(deps.chats, deps.accessFor);
  const feed = new ConsoleFeed(CONSOLE_FEED_LIMITS, new ConsoleHistory(deps.db));
  const adapter = createConsoleAdapter(feed, now);
  const terminals = new TerminalRelay({
    nodes: deps.registry,
    bufferBytes: config.CONSOLE_TERMINAL_BUFFER_BYTES,
    platform: adapter.name,
    reattachMs: config.CONSOLE_TERMINAL_REATTACH_S * 1000,
    logger,
  });
  terminals.watch((listener) => deps.registry.subscribe(listener));
  const overviews = new OverviewRelay({
    nodes: deps.registry,
    // A host that cannot answer within a heartbeat's timeout is as good as gone.
    timeoutMs: config.HEARTBEAT_TIMEOUT_S * 1000,
    logger,
  });
  overviews.watch((listener) => deps.registry.subscribe(listener));

  const publicOrigin = config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : undefined;
  const secure = deps.tls || publicOrigin?.startsWith("https:") === true;
  const expectedOrigin = (headers: { host?: string | undefined }) =>
    publicOrigin ?? `${deps.tls ? "https" : "http"}://${headers.host ?? ""}`;

  const pages = new Set<ConsolePage>();
  deps.registry.subscribe(() => {
    for (const page of pages) page.nodesChanged();
  });
  const { store: pushStore, alerts, act } = wirePush(config, deps, { sessions, pages, adapter, logger, now });
  sessions.onEnded((ids) => {
    terminals.endSessions(ids);
    pushStore.dropSessions(ids);
    const ended = new Set(ids);
    for (const page of pages)
      if (ended.has(page.session.id)) page.close(ConsoleCloseCode.SIGNED_OUT, "signed out");
  });
  const isAdmin = (userId: string) => deps.admins.isAdmin(userId, splitQualified(userId)?.adapter ?? "");
  const openPage = (socket: WebSocket, session: ConsoleSession) => {
    const page = new ConsolePage(socket, session, isAdmin(session.userId), {
      nodes: deps.registry,
      feed,
      adapter,
      terminals,
      overviews,
      sessionIsLive: (id) => sessions.isLive(id),
      now,
      logger,
      heartbeatMs: config.HEARTBEAT_INTERVAL_S * 1000,
    });
    pages.add(page);
    socket.once("close", () => pages.delete(page));
    logger.info({ userId: session.userId }, "console page connected");
  };

  const command = new ConsoleCommand({
    links,
    sessions,
    baseUrl: () => config.PUBLIC_URL ?? deps.listenUrl(),
    ...(config.PUBLIC_URL || isLoopbackHost(config.ROUTER_HOST)
      ? {}
      : {
          addressHint:
            "(The link uses the address the router listens on. If your phone cannot open it, set PUBLIC_URL " +
            "on the router to its address as your browser reaches it.)",
        }),
    pageReady: () => assetsDir !== undefined && existsSync(join(assetsDir, CONSOLE_ENTRY)),
    linkTtlMs: config.CONSOLE_LINK_TTL_S * 1000,
    ...(deps.onSecret ? { onSecret: deps.onSecret } : {}),
  });

  const judge = consoleUpgradeJudge({ sessions, access, expectedOrigin });
  return {
    adapter,
    access,
    command,
    terminals,
    overviews,
    alerts,
    upgradeJudges: new Map([[CONSOLE_WS_PATH, judge]]),
    register(app) {
      app.register(async (scope) => {
        await registerConsoleRoutes(scope, {
          assetsDir,
          links,
          sessions,
          access,
          secure,
          sessionTtlMs: config.CONSOLE_SESSION_TTL_S * 1000,
          loginPerMin: config.CONSOLE_LOGIN_PER_MIN,
          codeAttempts: new LoginCodeAttempts(config.CONSOLE_LOGIN_PER_CODE),
          expectedOrigin,
          openPage,
          ...(deps.vouch ? { vouch: deps.vouch } : {}),
        });
        registerPushRoutes(scope, {
          store: pushStore,
          sessionOf: (request) => sessionOf(request.headers.cookie, { sessions, access }),
          expectedOrigin: (request) => expectedOrigin(request.headers),
          act,
        });
      });
    },
  };
}

/**
 * Web Push: the subscriptions (dropped with their sign-ins, by the caller), the alerts (nothing
 * while a page of the user's is watching), and a notification's Approve/Deny — the user's own
 * message to a node of theirs, as the page's buttons send it.
 */
function wirePush(
  config: RouterConfig,
  deps: ConsoleDeps,
  parts: {
    sessions: ConsoleSessions;
    pages: ReadonlySet<ConsolePage>;
    adapter: ConsoleAdapter;
    logger: Logger;
    now: () => number;
  },
) {
  const { sessions, pages, adapter, logger } = parts;
  const store = new PushStore(deps.db, parts.now);
  const alerts = new PushAlerts({
    sender: new PushSender({
      store,
      subject: webPushSubject(config),
      logger,
      sessionIsLive: (id) => sessions.isLive(id),
      ...(deps.pushAgent ? { agent: deps.pushAgent } : {}),
    }),
    watching: (userId) => [...pages].some((page) => page.userId === userId && page.watching),
    logger,
  });
  const act = async (userId: string, node: string, command: string) => {
    if (!deps.registry.nodesForUser(userId).some((known) => known.nodeId === node)) return false;
    await adapter.receive(userId, `@${node} ${command}`);
    return true;
  };
  return { store, alerts, act };
}
