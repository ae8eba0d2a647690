import { randomUUID } from "node:crypto";
import type { Agent } from "node:https";
import { join } from "node:path";
import {
  type Clock,
  type Logger,
  type SqliteDatabase,
  systemClock,
  WalCheckpoints,
} from "@phonework/runtime";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { AccessPolicy } from "./access/adapter-access.ts";
import { Admins } from "./access/admins.ts";
import { ChatAccess } from "./access/chat-access.ts";
import type { ChatHub } from "./chat/chat-hub.ts";
import type { RouterConfig } from "./config/router-config.ts";
import { QuietConsoleRequests } from "./console/console-request-log.ts";
import { consoleFor, type WebConsole } from "./console/create-console.ts";
import { type FrameTable, mergeFrameTables } from "./contracts/node-frames.ts";
import { qualifyLegacyIds } from "./database/legacy-ids.ts";
import { openRouterDatabase, routerDatabasePath } from "./database/router-db.ts";
import { DeliveredStore } from "./delivery/delivered-store.ts";
import { deliveryFrames } from "./delivery/delivery-frames.ts";
import { DeliveryLedger } from "./delivery/delivery-ledger.ts";
import { NodeNotices } from "./delivery/node-notices.ts";
import { RequestLog } from "./delivery/request-log.ts";
import { createForwarder } from "./forwarding/forwarder.ts";
import { dispatcherSettings, MessageDispatcher } from "./forwarding/message-dispatcher.ts";
import { createFrontDoor, type FrontDoor } from "./front-door/front-door.ts";
import { listenUrl } from "./front-door/http-server.ts";
import { readTlsFiles } from "./front-door/tls-files.ts";
import { registerHealthRoute } from "./health/health-route.ts";
import { routerVersion } from "./health/router-version.ts";
import { ChatLayer } from "./intake/chat-layer.ts";
import { linkPolicy, sharedSecret } from "./node-link/link-settings.ts";
import type { NodeConnection } from "./node-link/node-connection.ts";
import { serveNodeSockets } from "./node-link/node-endpoint.ts";
import type { FeatureFrame } from "./node-link/node-socket.ts";
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
import { openUserState } from "./users/legacy-users-file.ts";
import type { UserStateStore } from "./users/user-state-store.ts";
import { voiceOutFor } from "./voice/voice-out-for.ts";
import { PlanGrants } from "./workers/plan-grants.ts";
import { workerFrames } from "./workers/worker-frames.ts";
import { WorkerRelay } from "./workers/worker-relay.ts";

/**
 * Connections the kernel holds for the router before it accepts them (Linux caps it at
 * net.core.somaxconn, 4,096 by default). Node's 511 overflowed when thousands of hosts came back
 * at once: the kernel dropped their SYNs, each cost its host a 1 s, then 3 s, then 7 s SYN retry,
 * and at 10 s the host's handshake timeout counted a failure that grew its backoff. The router
 * accepts paused and cheaply (front-door/connection-pacer.ts); a deeper queue only lets the burst
 * wait in the kernel instead of being dropped. `pnpm bench storm`, 10,000 hosts, alternating, load 3–4:
 * all back 37.4 / 38.7 s → 35.9 / 34.8 s (handshake timeouts 1,239 / 3,521 → 1,502 / 129).
 */
const LISTEN_BACKLOG = 4096;

// Composition root of the router, in the order a message travels: the base (database, registry,
// user state), the front door, the chat platforms with their access rules and the console, the
// intake (ChatLayer), the delivery ledger, the dispatcher that routes and forwards, the frame
// table every node's frames go through, and the HTTP server. It only wires: each part is built in
// its folder.

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
  /** How Web Push requests are made (tests: an agent trusting the fake push service's CA). */
  pushAgent?: Agent;
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
  /** Who may use which chat, and how ids (SERVES_USERS, ALLOWED_USERS…) are read here. */
  readonly access: ChatAccess;
  /** Listens for hosts and HTTP; resolves with the base URL (http(s)://host:port). */
  listen(): Promise<string>;
  /** Starts taking chat messages from the adapters. */
  startChat(): Promise<void>;
  /** Resolves once every chat message taken so far is stored and handled (answered or forwarded). */
  chatDrained(): Promise<void>;
  /** `listen()` then `startChat()`. */
  start(): Promise<string>;
  /** The node WebSocket URL, once started. */
  readonly nodeUrl: string;
  /** Stops chat input, waits for in-flight replies (bounded), tells hosts it is restarting, closes. */
  close(options?: { drainMs?: number }): Promise<void>;
}

/** What every phase of the wiring shares: the clock, the logger, the database and the node registry. */
interface Base {
  config: RouterConfig;
  deps: RouterDeps;
  logger: Logger;
  clock: Clock;
  now: () => number;
  db: SqliteDatabase;
  registry: NodeRegistry<NodeConnection>;
  userState: UserStateStore;
  /** The listen address once listening, and whether the router is closing (new hosts get 503). */
  listening: { url: string; closing: boolean };
  onSecret: ((code: string) => void) | undefined;
}

export function createRouter(config: RouterConfig, deps: RouterDeps): Router {
  const base = openBase(config, deps);
  const { logger, now, db, registry } = base;
  const tls = readTlsFiles(config);
  const frontDoor = createFrontDoor(config, { logger: logger.child({ component: "front-door" }), now, tls });
  const chats = deps.chat ?? [];
  const access = new ChatAccess(config, chats);
  const admins = new Admins(access.admins);
  const accessFor = deps.accessFor ?? ((adapter: PlatformAdapter) => access.forAdapter(adapter.name));
  // The console is one more chat adapter, for the users of the others: with none, nobody could sign in.
  const webConsole = consoleFor(config, chats, {
    db,
    registry,
    chats,
    accessFor,
    admins,
    clock: base.clock,
    logger,
    tls: tls !== undefined,
    vouch: frontDoor.vouch,
    listenUrl: () => base.listening.url || undefined,
    ...(deps.consoleAssets ? { assetsDir: deps.consoleAssets } : {}),
    ...(deps.pushAgent ? { pushAgent: deps.pushAgent } : {}),
    ...(base.onSecret ? { onSecret: base.onSecret } : {}),
  });
  const chatLayer = ChatLayer.forRouter(config, {
    adapters: webConsole ? [...chats, webConsole.adapter] : chats,
    accessFor: (adapter) => (adapter === webConsole?.adapter ? webConsole.access : accessFor(adapter)),
    db,
    now,
    logger: logger.child({ component: "chat" }),
  });
  const notices = new NodeNotices(chatLayer.hub, base.userState, registry, logger, webConsole?.alerts);
  notices.watch(registry);
  qualifyLegacyIds(db, base.userState, access.chatAdapters, logger);
  const { nodes, pairing } = openPairing(config, base);
  const { deliveries, delivered, requests, workers } = wireDeliveries(base, notices);
  const dispatcher = new MessageDispatcher({
    ...dispatcherSettings(config),
    registry,
    userState: base.userState,
    chat: chatLayer.hub,
    requests,
    admins,
    pairing,
    qualifyUser: (id) => access.qualifyUser(id),
    forward: createForwarder(registry),
    routing: deps.routing ?? defaultRoutingSteps(config, base.clock, logger, db),
    clock: base.clock,
    newId: deps.newId ?? randomUUID,
    logger,
    deliveries,
    voiceOut: voiceOutFor(config, { chat: chatLayer.hub, userState: base.userState, logger, now }),
    ...(webConsole ? { console: webConsole.command } : {}),
  });
  const frames = mergeFrameTables(
    rpcFrames((nodeId, id, message) => webConsole?.overviews.refused(nodeId, id, message) ?? false),
    registryFrames(registry),
    deliveryFrames(deliveries, (id) => access.qualifyServedUser(id)),
    workerFrames(workers),
    terminalFrames(webConsole?.terminals),
    overviewFrames(webConsole?.overviews),
  );
  const app = serveHttp(base, { frontDoor, tls, nodes, frames, access, chat: chatLayer.hub, webConsole });
  const drained = () =>
    Promise.all([chatLayer.drain(), dispatcher.drain(), deliveries.drain(), webConsole?.alerts.drain()]);
  const parts = { app, registry, dispatcher, pairing, console: webConsole, frontDoor, access };
  const checkpoints = new WalCheckpoints(base.db, { logger });
  const closed = async () => {
    delivered.flush();
    await checkpoints.stop();
  };
  return routerHandle(base, parts, { tls, chatLayer, drained, closed });
}

/** The paired nodes (known to the registry before any connects) and the pairing service. */
function openPairing(config: RouterConfig, base: Base): { nodes: NodeStore; pairing: PairingService } {
  const nodes = new NodeStore(base.db);
  for (const paired of nodes.list()) base.registry.addPaired(paired);
  const pairing = new PairingService({
    store: nodes,
    registry: base.registry,
    joinCodeTtlMs: config.JOIN_CODE_TTL_S * 1000,
    now: base.now,
    ...(base.onSecret ? { onSecret: base.onSecret } : {}),
  });
  return { nodes, pairing };
}

/** The logger, clock, database, registry and user state every other part is built on. */
function openBase(config: RouterConfig, deps: RouterDeps): Base {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger.child({ component: "router" });
  const db = deps.db ?? openRouterDatabase(routerDatabasePath(config.DATA_DIR));
  return {
    config,
    deps,
    logger,
    clock,
    now: () => clock.now(),
    db,
    registry: new NodeRegistry<NodeConnection>(clock),
    userState: deps.userState ?? openUserState(db, join(config.DATA_DIR, "router", "users.json"), logger),
    listening: { url: "", closing: false },
    onSecret: deps.secrets ? (code: string) => deps.secrets?.add(code) : undefined,
  };
}

/** The delivery ledger and the Master/Worker relay, over the stores they keep in router.db. */
function wireDeliveries({ config, db, now, registry, logger }: Base, notices: NodeNotices) {
  const ttlMs = config.DELIVERED_TTL_S * 1000;
  const delivered = new DeliveredStore(db, ttlMs, now);
  const requests = new RequestLog(db, ttlMs, now);
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
    grants: new PlanGrants(db, requests, ttlMs, now),
    now,
    logger: logger.child({ component: "workers" }),
  });
  workers.watch(registry);
  return { deliveries, delivered, requests, workers };
}

/** The HTTP server: the node WebSocket endpoint, /health, the platforms' webhooks and the console. */
function serveHttp(
  base: Base,
  parts: {
    frontDoor: FrontDoor;
    tls: { cert: Buffer; key: Buffer } | undefined;
    nodes: NodeStore;
    frames: FrameTable<FeatureFrame>;
    access: ChatAccess;
    chat: ChatHub;
    webConsole: WebConsole | undefined;
  },
): FastifyInstance {
  const { config, logger, clock, now, registry, listening } = base;
  const { frontDoor, tls, nodes, webConsole } = parts;
  const app = Fastify({
    loggerInstance: logger.child({ component: "http" }) as FastifyBaseLogger,
    // The server is the front door's (its limits must be set at creation); `https` only tells
    // fastify which scheme it serves.
    serverFactory: frontDoor.serverFactory,
    ...(tls ? { https: tls } : {}),
    trustProxy: frontDoor.trustProxy,
    logController: new QuietConsoleRequests(),
  }) as unknown as FastifyInstance;
  const nodeLogger = logger.child({ component: "nodes" });
  const secret = sharedSecret(config, logger);
  const nodeSockets = attachNodeWebSocket(
    app,
    {
      secret,
      maxHandshakesPerS: config.MAX_HANDSHAKES_PER_S,
      maxPayloadBytes: config.MAX_PAYLOAD_BYTES,
      closing: () => listening.closing,
      expectsNode: (nodeId) => nodes.expectsNode(nodeId, now()),
      clientOf: frontDoor.clientOf,
      now,
      ...(webConsole ? { endpoints: webConsole.upgradeJudges } : {}),
    },
    nodeLogger,
  );
  const link = { ...linkPolicy(config), registry, nodes, clock, logger: nodeLogger };
  serveNodeSockets(
    nodeSockets,
    {
      ...link,
      frames: parts.frames,
      qualifyUsers: (ids) => parts.access.qualifyServedUsers(ids),
      ownersOf: (paired) => parts.access.ownersOf(paired),
    },
    secret,
    frontDoor.vouch,
  );
  app.register(async (scope) => {
    registerHealthRoute(scope, {
      registry,
      chat: () => parts.chat.statuses(),
      clock,
      adminToken: config.ADMIN_TOKEN,
      version: routerVersion(new URL("../package.json", import.meta.url)),
      startedAt: clock.now(),
    });
  });
  registerWebhookRoutes(app, parts.chat.webhooks());
  webConsole?.register(app);
  return app;
}

/** Listening, taking chat, and the ordered close. */
function routerHandle(
  { config, logger, registry, listening, db }: Base,
  parts: Pick<Router, "app" | "registry" | "dispatcher" | "pairing" | "console" | "frontDoor" | "access">,
  run: {
    tls: unknown;
    chatLayer: ChatLayer;
    /** Every in-flight chat message, answer and push settled. */
    drained: () => Promise<unknown>;
    /** After the server closed: what must reach the disk before the database closes. */
    closed: () => Promise<void>;
  },
): Router {
  const { app, dispatcher } = parts;
  const { chatLayer } = run;
  return {
    ...parts,
    get nodeUrl() {
      return `${listening.url.replace(/^http/, "ws")}/ws/node`;
    },
    async listen() {
      await app.listen({ port: config.ROUTER_PORT, host: config.ROUTER_HOST, backlog: LISTEN_BACKLOG });
      listening.url = listenUrl(app.server, config, run.tls !== undefined);
      logger.info({ url: listening.url }, "router listening");
      return listening.url;
    },
    async startChat() {
      await chatLayer.start((message) => dispatcher.handle(message));
      logger.info({ platforms: chatLayer.hub.platforms }, "chat started");
      chatLayer.followCommandMenu(registry);
    },
    chatDrained: () => chatLayer.drain(),
    async start() {
      const url = await this.listen();
      await this.startChat();
      return url;
    },
    async close(options = {}) {
      listening.closing = true; // new hosts get 503: they reconnect to the next instance
      await chatLayer.stop(); // no new messages; replies still go out while draining
      const drainMs = options.drainMs ?? 5000;
      await Promise.race([run.drained(), new Promise((resolve) => setTimeout(resolve, drainMs).unref())]);
      chatLayer.hub.mute(); // nodes dropping because we close is not news to users
      await app.close();
      await run.closed();
      db.close();
    },
  };
}
