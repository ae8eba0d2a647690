import { join } from "node:path";
import { createHost, type Host } from "@phonework/host";
import {
  type ChatChoice,
  chooseChat,
  createRouter,
  createTerminalAdapter,
  listenFailure,
  openRouterDatabase,
  type PlatformAdapter,
  type Router,
  routerDatabasePath,
  selectChatAdapters,
} from "@phonework/router";
import { type Clock, ConfigError, type Logger, systemClock } from "@phonework/runtime";
import type { StandaloneConfig } from "./config.ts";

// Router and host in one process. It chats where the router would (a configured platform), else
// on the terminal (or any streams given); tests and embedders may pass a chat adapter instead.

interface CommonDeps {
  logger: Logger;
  /** Environment for the coding agents' processes (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Time source for both halves (tests drive reminders with it). */
  clock?: Clock;
  /** The logger's secret values: codes minted at run time (join, console) are added, so no line shows them. */
  secrets?: { add(value: string): void };
  /** The web console's built page (default: the router's, found beside its code). */
  consoleAssets?: string;
}

export type StandaloneDeps =
  | (CommonDeps & { input: NodeJS.ReadableStream; output: NodeJS.WritableStream })
  | (CommonDeps & { chat: PlatformAdapter });

export interface Standalone {
  router: Router;
  host: Host;
  /** The router's base URL (http(s)://host:port). */
  url: string;
  /** Where a platform that delivers events over HTTP posts them (none in Feishu's ws mode). */
  webhooks: string[];
  /**
   * Resolves once the standalone has stopped: at the end of terminal input, when every reply has
   * been printed, or after stop(). A platform chat has no end of input: it runs until stop().
   */
  finished: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Where the standalone chats: the router's rule, except that it does not fall into headless when
 * stdin is not a terminal. With no platform configured it chats on its input even when that is a
 * pipe: `printf '/nodes\n' | phonework standalone` answers every line, then exits.
 */
export function standaloneChat(config: StandaloneConfig): ChatChoice {
  return chooseChat(config, true);
}

export async function startStandalone(config: StandaloneConfig, deps: StandaloneDeps): Promise<Standalone> {
  let endOfInput!: () => void;
  const inputEnded = new Promise<void>((resolve) => {
    endOfInput = resolve;
  });
  const clock = deps.clock ?? systemClock;
  // One router.db for the router and its chat adapters (Feishu remembers handled events there).
  const db = openRouterDatabase(routerDatabasePath(config.DATA_DIR));
  let router: Router;
  let chat: PlatformAdapter[];
  try {
    chat =
      "chat" in deps
        ? [deps.chat]
        : await selectChatAdapters(config, {
            logger: deps.logger,
            clock,
            db,
            stdinIsTerminal: true, // piped input is a chat too: see standaloneChat
            terminal: () =>
              createTerminalAdapter({
                input: deps.input,
                output: deps.output,
                filesDir: join(config.DATA_DIR, "files"),
                onEnd: () => endOfInput(),
              }),
          });
    router = createRouter(config, {
      logger: deps.logger,
      chat,
      clock,
      db,
      ...(deps.secrets ? { secrets: deps.secrets } : {}),
      ...(deps.consoleAssets ? { consoleAssets: deps.consoleAssets } : {}),
    });
    // Its own host's SERVES_USERS, read as the router will read it: refused now, not at registration.
    const served = router.access.qualifyServedUsers(config.SERVES_USERS);
    if (!served.ok) throw new ConfigError(`invalid configuration:\n  ${served.reason}`);
  } catch (error) {
    db.close(); // the router, once built, owns it
    throw error;
  }
  const url = await router.listen().catch((error: unknown) => {
    throw listenFailure(error, config.ROUTER_HOST, config.ROUTER_PORT); // a port in use: one line
  });
  const host = createHost(
    { ...config, ROUTER_URL: router.nodeUrl },
    { logger: deps.logger, clock, ...(deps.env ? { env: deps.env } : {}) },
  );
  host.start();
  // Take the first message only once the local node is registered, so `/nodes` already shows it.
  await host.ready();
  await router.startChat();

  let stopped!: (closing: Promise<void>) => void;
  const finished = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  // A failed stop rejects stop() too: a caller that never looks at `finished` must not crash on it.
  finished.catch(() => undefined);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    if (!stopping) {
      stopping = (async () => {
        // The router's close waits (up to 5 s) for the answers in flight. In one process those are
        // this host's own requests, which its stop would cancel anyway: cancel them first, so the
        // user is told "Cancelled" at once and a Ctrl-C does not wait out the drain.
        host.requests.cancelAll("standalone stopping");
        await router.close();
        await host.stop();
      })();
      stopped(stopping); // `finished` settles as the stop does, failure included
    }
    return stopping;
  };
  // At the end of piped input every reply is awaited in full; close()'s own drain is bounded.
  // A line read just before the end may still be waiting for its store's commit (the turn's one
  // commit): the chat layer is drained first, then the answers the dispatcher is waiting for.
  void inputEnded.then(async () => {
    await router.chatDrained();
    await router.dispatcher.drain();
    await stop().catch(() => undefined); // a failed stop is reported through `finished`
  });
  const webhooks = chat.flatMap((adapter) => (adapter.webhook ? [`${url}${adapter.webhook.path}`] : []));
  return { router, host, url, webhooks, finished, stop };
}
