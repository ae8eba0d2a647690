import { join } from "node:path";
import { createHost, type Host } from "@phonework/host";
import { type ChatAdapter, createRouter, createTerminalAdapter, type Router } from "@phonework/router";
import type { Clock, Logger } from "@phonework/runtime";
import type { StandaloneConfig } from "./config.ts";

// Router and host in one process, chatting on the terminal (or any streams given, or any
// chat adapter: tests and embedders pass an in-memory one).

interface CommonDeps {
  logger: Logger;
  /** Environment for the coding agents' processes (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Time source for both halves (tests drive reminders with it). */
  clock?: Clock;
}

export type StandaloneDeps =
  | (CommonDeps & { input: NodeJS.ReadableStream; output: NodeJS.WritableStream })
  | (CommonDeps & { chat: ChatAdapter });

export interface Standalone {
  router: Router;
  host: Host;
  /** Resolves when terminal input has ended and every reply has been printed. */
  finished: Promise<void>;
  stop(): Promise<void>;
}

export async function startStandalone(config: StandaloneConfig, deps: StandaloneDeps): Promise<Standalone> {
  let endOfInput!: () => void;
  const inputEnded = new Promise<void>((resolve) => {
    endOfInput = resolve;
  });
  const chat =
    "chat" in deps
      ? deps.chat
      : createTerminalAdapter({
          input: deps.input,
          output: deps.output,
          filesDir: join(config.DATA_DIR, "files"),
          onEnd: () => endOfInput(),
        });
  const clock = deps.clock ? { clock: deps.clock } : {};
  const router = createRouter(config, { logger: deps.logger, chat: [chat], ...clock });
  await router.listen();
  const host = createHost(
    { ...config, ROUTER_URL: router.nodeUrl },
    { logger: deps.logger, ...clock, ...(deps.env ? { env: deps.env } : {}) },
  );
  host.start();
  // Read the first line only once the local node is registered, so `/nodes` already shows it.
  await host.ready();
  await router.startChat();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await router.close();
      await host.stop();
    })();
    return stopping;
  };
  // At the end of piped input every reply is awaited in full; close()'s own drain is bounded.
  const finished = inputEnded.then(async () => {
    await router.dispatcher.drain();
    await stop();
  });
  return { router, host, finished, stop };
}
