import { join } from "node:path";
import {
  type Clock,
  type Logger,
  type SqliteDatabase,
  systemClock,
  WalCheckpoints,
} from "@phonework/runtime";
import type { HostConfig } from "./config/host-config.ts";
import type { ChatOwner } from "./contracts/chat-owner.ts";
import { Outbox, recipientOf } from "./delivery/outbox.ts";
import type { HostDeps } from "./host-deps.ts";
import { NodeOwners } from "./link/node-owners.ts";
import { RouterLink } from "./link/router-link.ts";
import { servesUserRule } from "./link/serves-user.ts";
import { createOpenAIModelClient, type ModelClient } from "./model/model-client.ts";
import { createOverview, type HostOverview } from "./overview/create-overview.ts";
import { buildSandbox, decideSandbox } from "./sandbox/open-sandbox.ts";
import { describeSandbox, type ShellSandbox } from "./sandbox/shell-sandbox.ts";
import { openStateDatabase } from "./state-database.ts";
import { openUsage, type Usage } from "./usage/open-usage.ts";
import { type Channels, openChannels } from "./workspace/open-channels.ts";
import { WorkspaceLayout } from "./workspace/workspace-layout.ts";

// What every feature of a host is built on, opened in this order: the sandbox decision (SANDBOX=on
// where it cannot work stops the start before any file is opened), the state database, the
// durable outbox, the chats' workspace, the link to the router and the console's overview.

export interface HostBase {
  config: HostConfig;
  logger: Logger;
  clock: Clock;
  now: () => number;
  /** The host's environment: commands, terminals and coding CLIs start from it. */
  env: NodeJS.ProcessEnv;
  displayName: string;
  /** DATA_DIR/host/<node>: this node's state. */
  stateDir: string;
  workspace: WorkspaceLayout;
  db: SqliteDatabase;
  /** state.db's WAL checkpointed on a timer, so no outbox commit pays one (stopped before the close). */
  checkpoints: WalCheckpoints;
  transaction: <T>(fn: () => T) => T;
  outbox: Outbox;
  channels: Channels;
  sandbox: ShellSandbox;
  /** Whether this node serves a user (SERVES_USERS). */
  servesUser: (userId: string) => boolean;
  /** Who owns this node, as the router says at each registration. */
  owners: NodeOwners;
  link: RouterLink;
  /** Sends a frame on the link now (live state, not an item to deliver); false when it is down. */
  send: RouterLink["send"];
  overview: HostOverview;
  /** Adds the host's own message to a chat's context, so the assistant knows what it said. */
  remember: (owner: ChatOwner, text: string) => void;
  /** The assistant's model, when one is configured (or handed in). */
  model: ModelClient | undefined;
  /** What model calls and coding turns spend, and the limits on it. */
  usage: Usage;
}

export function openHostBase(config: HostConfig, deps: HostDeps): HostBase {
  const logger = deps.logger.child({ component: "host", nodeId: config.NODE_ID });
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const env = deps.env ?? process.env;
  const sandboxDecision = decideSandbox(config, { env, logger });
  const stateDir = join(config.DATA_DIR, "host", config.NODE_ID);
  const workspace = new WorkspaceLayout(config.WORKSPACE_DIR ?? join(stateDir, "workspace"));
  const db = openStateDatabase(join(stateDir, "state.db"));
  const checkpoints = new WalCheckpoints(db, { logger });
  const outbox = new Outbox(db, logger.child({ component: "outbox" }), now);
  const displayName = config.DISPLAY_NAME ?? config.NODE_ID;
  const channels = openChannels({
    layout: workspace,
    db,
    outbox,
    nodeId: config.NODE_ID,
    displayName,
    now,
    logger,
    maxTokens: config.HISTORY_MAX_TOKENS,
    logThreadAt: config.CHANNEL_LOG_THREAD_AT,
    modelId: config.OPENAI_MODEL,
    legacyHistoryDir: join(stateDir, "history"),
  });
  const sandbox = buildSandbox(config, sandboxDecision, {
    env,
    workspace,
    logger,
    channelsOf: (userId) => channels.access.channelsOf(userId),
  });
  // Who owns this node, as the router says at each registration: only they change host-wide state.
  const owners = new NodeOwners();
  const link = new RouterLink({
    url: config.ROUTER_URL,
    nodeId: config.NODE_ID,
    secret: config.ROUTER_SECRET,
    identity: deps.identity,
    insecure: config.ALLOW_INSECURE_TRANSPORT && config.ROUTER_URL.startsWith("ws:"),
    ...(deps.tls ? { tls: deps.tls } : {}),
    maxPayloadBytes: config.MAX_PAYLOAD_BYTES,
    backoff: { baseMs: 500, maxMs: config.RECONNECT_MAX_DELAY_S * 1000 },
    logger: logger.child({ component: "link" }),
    // Said each time the host registers: whether commands run sandboxed, and if not, why.
    registeredFields: () => ({ sandbox: describeSandbox(sandbox.status) }),
    onRegistered: (frame) => {
      owners.update(frame.owners);
      // The join code did its work: keep the key, and never present the code again.
      if (!deps.identity?.joinCode) return;
      deps.identity.save();
      deps.identity.joinCode = undefined;
      logger.info("paired with the router; the node key is saved in DATA_DIR");
    },
    ...(deps.onRefused ? { onRefused: deps.onRefused } : {}),
    ...(deps.random ? { random: deps.random } : {}),
  });
  outbox.attach(link);
  const servesUser = servesUserRule(config.SERVES_USERS);
  const send = (frame: Parameters<RouterLink["send"]>[0]) => link.send(frame);
  // The console's view of each user's work here: told what changes, asked by the router.
  const overview = createOverview({ send, servesUser, now, logger, db });
  // Whatever the host tells a user (an answer, a reminder, a task's end) may change what they see.
  outbox.onStored((item) => {
    const userId = recipientOf(item);
    if (userId) overview.changed(userId);
  });
  link.onStateChange((state) => overview.linkUp(state === "registered"));
  const usage = openUsage({ config, db, now, logger, notify: (to, text) => void outbox.notify(to, text) });
  return {
    config,
    logger,
    clock,
    now,
    env,
    displayName,
    stateDir,
    workspace,
    db,
    checkpoints,
    outbox,
    channels,
    sandbox,
    transaction: (fn) => db.transaction(fn)(),
    servesUser,
    owners,
    link,
    send,
    overview,
    remember: (owner, text) => channels.contexts.append(owner, [{ role: "assistant", content: text }]),
    model: deps.model ?? buildModel(config),
    usage,
  };
}

function buildModel(config: HostConfig): ModelClient | undefined {
  if (!config.OPENAI_API_KEY) return undefined;
  return createOpenAIModelClient({
    apiKey: config.OPENAI_API_KEY,
    model: config.OPENAI_MODEL,
    maxRetries: config.OPENAI_MAX_RETRIES,
    ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}),
  });
}
