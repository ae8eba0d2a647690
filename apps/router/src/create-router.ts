import { randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  type Clock,
  isLoopbackHost,
  type Logger,
  type SqliteDatabase,
  systemClock,
} from "@phonework/runtime";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { AccessPolicy } from "./access/adapter-access.ts";
import { Admins } from "./access/admins.ts";
import { ChatAccess } from "./access/chat-access.ts";
import type { RouterConfig } from "./config/router-config.ts";
import { createConsole, type WebConsole } from "./console/create-console.ts";
import { mergeFrameTables } from "./contracts/node-frames.ts";
import { qualifyLegacyIds } from "./database/legacy-ids.ts";
import { openRouterDatabase, routerDatabasePath } from "./database/router-db.ts";
import { DeliveredStore } from "./delivery/delivered-store.ts";
import { deliveryFrames } from "./delivery/delivery-frames.ts";
import { DeliveryLedger } from "./delivery/delivery-ledger.ts";
import { NodeNotices } from "./delivery/node-notices.ts";
import { RequestLog } from "./delivery/request-log.ts";
import { createForwarder } from "./forwarding/forwarder.ts";
import { MessageDispatcher } from "./forwarding/message-dispatcher.ts";
import { createFrontDoor, type FrontDoor } from "./front-door/front-door.ts";
import { readTlsFiles } from "./front-door/tls-files.ts";
import { registerHealthRoute } from "./health/health-route.ts";
import { routerVersion } from "./health/router-version.ts";
import { TERMINAL_PLATFORM, TERMINAL_USER } from "./ids/qualified-id.ts";
import { ChatLayer } from "./intake/chat-layer.ts";
import type { NodeConnection } from "./node-link/node-connection.ts";
import { registerNodeEndpoint } from "./node-link/node-endpoint.ts";
import { attachNodeWebSocket } from "./node-link/node-websocket.ts";
import { overviewFrames } from "./overview/overview-frames.ts";
import { NodeStore } from "./pairing/node-store.ts";
import { PairingService } from "./pairing/pairing-service.ts";
import type { PlatformAdapter } from "./platforms/platform-adapter.ts";
import { registerWebhookRoutes } from "./platforms/webhook/webhook-routes.ts";
import { NodeRegistry } from "./registry/node-registry.ts";
import { registryFrames } from "./registry/registry-frames.ts";
import { defaultRoutingSteps } from "./routing/default-routing.ts";
import type { RoutingStep } from "./routing/routing-step.ts";
import { rpcFrames } from "./rpc/rpc-frames.ts";
import { terminalFrames } from "./terminals/terminal-frames.ts";
import { UserStateStore } from "./users/user-state-store.ts";
import { PlanGrants } from "./workers/plan-grants.ts";
import { workerFrames } from "./workers/worker-frames.ts";
import { WorkerRelay } from "./workers/worker-relay.ts";

// Composition root of the router: wires registry, node endpoint, chat adapters and routing.

export interface RouterDeps {
  logger: Logger;
  /** Chat platforms to serve; none means the router only relays (tests, headless use). */
  chat?: PlatformAdapter[];
  /** Who may use each adapter (default: from the config's adapters, ALLOWED_USERS and ADMINS). */
  accessFor?: (adapter: PlatformAdapter) => AccessPolicy;
  clock?: Clock;
  newId?: () => string;
  /** Routing steps tried in order before falling back to the active node (default: defaultRoutingSteps). */
  routing?: RoutingStep[];
  userState?: UserStateStore;
  /** Told every secret minted at run time (join codes), so the logger can redact it by value. */
  secrets?: { add(value: string): void };
  /**
   * router.db, when the caller opened it to share with the chat adapters (their seen-events store);
   * the router takes it over and closes it in close(). Default: opened from DATA_DIR.
   */
  db?: SqliteDatabase;
  /** The web console's built page (default: found beside the code; see consoleAssetsDir). */
  consoleAssets?: string;
}

export interface Router {
  readonly app: FastifyInstance;
  readonly registry: NodeRegistry<NodeConnection>;
  readonly dispatcher: MessageDispatcher;
  readonly pairing: PairingService;
  /** The web console, when it is on (CONSOLE) and there is a chat to ask it from. */
  readonly console: WebConsole | undefined;
  /** The limits on connections nobody has vouched for yet (per address, timeouts, proxies). */
  readonly frontDoor: FrontDoor;
  /** Listens for hosts and HTTP; resolves with the base URL (http(s)://host:port). */
  listen(): Promise<string>;
  /** Starts taking chat messages from the adapters. */
  startChat(): Promise<void>;
  /** `listen()` then `startChat()`. */
  start(): Promise<string>;
  /** The node WebSocket URL, once started. */
  readonly nodeUrl: string;
  /** Stops chat input, waits for in-flight replies (bounded), tells hosts it is restarting, closes. */
  close(options?: { drainMs?: number }): Promise<void>;
}

export function createRouter(config: RouterConfig, deps: RouterDeps): Router {
  const logger = deps.logger.child({ component: "router" });
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const tls = readTlsFiles(config);
  const registry = new NodeRegistry<NodeConnection>(clock);
  const userState = deps.userState ?? UserStateStore.open(join(config.DATA_DIR, "router", "users.json"));
  const db = deps.db ?? openRouterDatabase(routerDatabasePath(config.DATA_DIR));
  const chats = deps.chat ?? [];
  const access = new ChatAccess(config, chats);
  const admins = new Admins(access.admins);
  const accessFor = deps.accessFor ?? ((adapter: PlatformAdapter) => access.forAdapter(adapter.name));
  // The console is one more chat adapter, for the users of the others: with none, nobody could sign in.
  const webConsole: WebConsole | undefined =
    config.CONSOLE === "on" && chats.length > 0
      ? createConsole(config, {
          db,
          registry,
          chats,
          accessFor,
          admins,
          clock,
          logger,
          tls: tls !== undefined,
          vouch: (socket) => frontDoor.vouch(socket),
          listenUrl: () => baseUrl || undefined,
          ...(deps.consoleAssets ? { assetsDir: deps.consoleAssets } : {}),
          ...(deps.secrets ? { onSecret: (code: string) => deps.secrets?.add(code) } : {}),
        })
      : undefined;
  const chatLayer = ChatLayer.forRouter(config, {
    adapters: webConsole ? [...chats, webConsole.adapter] : chats,
    accessFor: (adapter) => (adapter === webConsole?.adapter ? webConsole.access : accessFor(adapter)),
    db,
    now,
    logger: logger.child({ component: "chat" }),
  });
  const chat = chatLayer.hub;
  const notices = new NodeNotices(chat, userState, registry, logger);
  notices.watch(registry);
  qualifyLegacyIds(
    db,
    userState,
    chats.map((adapter) => adapter.name).filter((name) => name !== TERMINAL_PLATFORM),
    logger,
  );
  const nodes = new NodeStore(db);
  for (const paired of nodes.list()) registry.addPaired(paired);
  const pairing = new PairingService({
    store: nodes,
    registry,
    joinCodeTtlMs: config.JOIN_CODE_TTL_S * 1000,
    now,
    ...(deps.secrets ? { onSecret: (code: string) => deps.secrets?.add(code) } : {}),
  });
  const delivered = new DeliveredStore(db, config.DELIVERED_TTL_S * 1000, now);
  const requests = new RequestLog(db, config.DELIVERED_TTL_S * 1000, now);
  const deliveries = new DeliveryLedger({
    notices,
    delivered,
    requests,
    nodes: registry,
    pushLimits: { maxChars: config.MAX_PUSH_CHARS, perMinute: config.PUSH_RATE_PER_MIN },
    now,
    logger: logger.child({ component: "push" }),
  });
  const workers = new WorkerRelay({
    nodes: registry,
    grants: new PlanGrants(db, requests, config.DELIVERED_TTL_S * 1000, now),
    now,
    logger: logger.child({ component: "workers" }),
  });
  workers.watch(registry);
  // The shared secret admits hosts only where nobody but this machine can reach the router.
  const secret =
    config.ROUTER_SECRET && isLoopbackHost(config.ROUTER_HOST) ? config.ROUTER_SECRET : undefined;
  if (config.ROUTER_SECRET && !secret)
    logger.warn(
      { ROUTER_HOST: config.ROUTER_HOST },
      "ROUTER_SECRET is ignored on a router that is not bound to loopback: hosts must pair (/pair <name>)",
    );

  const dispatcher = new MessageDispatcher({
    registry,
    userState,
    chat,
    requests,
    admins,
    pairing,
    qualifyUser: (id) => access.qualifyUser(id),
    forward: createForwarder(registry),
    routing: deps.routing ?? defaultRoutingSteps(config, clock, logger),
    requestTimeoutMs: config.REQUEST_TIMEOUT_S * 1000,
    progressIntervalMs: config.PROGRESS_INTERVAL_S * 1000,
    clock,
    newId: deps.newId ?? randomUUID,
    logger,
    deliveries,
    ...(webConsole ? { console: webConsole.command } : {}),
  });

  const frontDoor = createFrontDoor(config, { logger: logger.child({ component: "front-door" }), now, tls });
  const app = Fastify({
    loggerInstance: logger.child({ component: "http" }) as FastifyBaseLogger,
    // The server is the front door's (its limits must be set at creation); `https` only tells
    // fastify which scheme it serves.
    serverFactory: frontDoor.serverFactory,
    ...(tls ? { https: tls } : {}),
    trustProxy: frontDoor.trustProxy,
  }) as unknown as FastifyInstance;
  const nodeLogger = logger.child({ component: "nodes" });
  attachNodeWebSocket(
    app,
    {
      secret,
      maxHandshakesPerS: config.MAX_HANDSHAKES_PER_S,
      maxPayloadBytes: config.MAX_PAYLOAD_BYTES,
      closing: () => closing,
      expectsNode: (nodeId) => nodes.expectsNode(nodeId, now()),
      clientOf: frontDoor.clientOf,
      now,
      ...(webConsole ? { endpoints: webConsole.upgradeJudges } : {}),
    },
    nodeLogger,
  );
  app.register(async (scope) => {
    registerNodeEndpoint(
      scope,
      {
        registry,
        nodes,
        heartbeat: {
          intervalMs: config.HEARTBEAT_INTERVAL_S * 1000,
          timeoutMs: config.HEARTBEAT_TIMEOUT_S * 1000,
        },
        backpressure: {
          maxPending: config.MAX_NODE_PENDING,
          slowSocketBytes: config.SLOW_SOCKET_BYTES,
          slowSocketMs: config.SLOW_SOCKET_S * 1000,
        },
        handshakeTimeoutMs: config.HANDSHAKE_TIMEOUT_S * 1000,
        maxPayloadBytes: config.MAX_PAYLOAD_BYTES,
        clock,
        logger: nodeLogger,
        frames: mergeFrameTables(
          rpcFrames((nodeId, id, message) => webConsole?.overviews.refused(nodeId, id, message) ?? false),
          registryFrames(registry),
          deliveryFrames(deliveries, (id) => {
            const user = access.qualifyServedUsers([id]);
            return user.ok ? (user.ids[0] ?? id) : id;
          }),
          workerFrames(workers),
          terminalFrames(webConsole?.terminals),
          overviewFrames(webConsole?.overviews),
        ),
        qualifyUsers: (ids) => access.qualifyServedUsers(ids),
        ownersOf: (paired) =>
          paired
            ? [paired.owner]
            : [
                ...admins.users,
                ...(chats.some((chat) => chat.name === TERMINAL_PLATFORM) ? [TERMINAL_USER] : []),
              ],
      },
      secret,
      frontDoor.vouch,
    );
    registerHealthRoute(scope, {
      registry,
      chat: () => chat.statuses(),
      clock,
      adminToken: config.ADMIN_TOKEN,
      version: routerVersion(new URL("../package.json", import.meta.url)),
      startedAt: clock.now(),
    });
  });
  registerWebhookRoutes(app, chat.webhooks());
  webConsole?.register(app);

  let baseUrl = "";
  let closing = false;
  return {
    app,
    registry,
    dispatcher,
    pairing,
    console: webConsole,
    frontDoor,
    get nodeUrl() {
      return `${baseUrl.replace(/^http/, "ws")}/ws/node`;
    },
    async listen() {
      await app.listen({ port: config.ROUTER_PORT, host: config.ROUTER_HOST });
      const address = app.server.address();
      const port = typeof address === "object" && address ? address.port : config.ROUTER_PORT;
      const host =
        config.ROUTER_HOST === "0.0.0.0" || config.ROUTER_HOST === "::" ? "127.0.0.1" : config.ROUTER_HOST;
      baseUrl = `${tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`;
      logger.info({ url: baseUrl }, "router listening");
      return baseUrl;
    },
    async startChat() {
      await chatLayer.start((message) => dispatcher.handle(message));
      logger.info({ platforms: chat.platforms }, "chat started");
      chatLayer.followCommandMenu(registry);
    },
    async start() {
      const url = await this.listen();
      await this.startChat();
      return url;
    },
    async close(options = {}) {
      closing = true; // new hosts get 503: they reconnect to the next instance
      await chatLayer.stop(); // no new messages; replies still go out while draining
      const drainMs = options.drainMs ?? 5000;
      await Promise.race([
        Promise.all([chatLayer.drain(), dispatcher.drain(), deliveries.drain()]),
        new Promise((resolve) => setTimeout(resolve, drainMs).unref()),
      ]);
      chat.mute(); // nodes dropping because we close is not news to users
      await app.close();
      delivered.flush();
      db.close();
    },
  };
}
