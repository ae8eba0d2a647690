import { HostConfigSchema } from "../apps/host/src/config/host-config.ts";
import { createHost } from "../apps/host/src/create-host.ts";
import { OUTPUT_CHUNK_BYTES } from "../apps/host/src/terminals/link-terminals.ts";
import type { TerminalSession } from "../apps/host/src/terminals/terminal-session.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import { placeholderConsolePage } from "../packages/testkit/src/placeholder-console-page.ts";
import type { Cleanup } from "./cleanup.ts";
import { type ConsoleReader, openConsoleReader, type Pace } from "./console-reader.ts";
import { atMost, type Figure, info } from "./figure.ts";
import { type InProcessRouter, startInProcessRouter } from "./in-process-router.ts";
import { BENCH_SECRET } from "./router-control.ts";
import { percentile, round, sortedCopy } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";

// Whether a terminal's output holds up chat on the same link (the design says it must not), and
// whether the host's buffer for it stays bounded: a real router (the memory chat and the console)
// and a real host (node-pty and its flow control) over a real socket, both in this process as in
// the standalone, so the flood's CPU is spent beside the chat's. Chat messages (`/tasks`, which the
// host answers without a model) are timed from the chat's side, one at a time, with no terminal,
// then beside a terminal running `yes` that a console page reads fast or slowly.

const USER = "alice";
const NODE = "bench";
const CHATS = 200;
const CHAT_GAP_MS = 10;
const FLOOD_WARM_UP_MS = 500;
const SLOW: Pace = { kind: "slow", bytes: 16 * 1024, everyMs: 50 };
/** Endless output, as fast as the terminal takes it. */
const FLOOD = "yes 0123456789abcdefghijklmnopqrstuvwxyz\r";

interface World {
  router: InProcessRouter;
  page: ConsoleReader;
  /** The host's TERMINAL_BUFFER_BYTES. */
  windowBytes: number;
  /** The terminal sessions the host opened, newest last (their peak held bytes). */
  sessions: TerminalSession[];
}

async function startWorld(cleanup: Cleanup): Promise<World> {
  const dir = tempDir(cleanup, "terminal-flood");
  const router = await startInProcessRouter(cleanup, {}, { consoleAssets: placeholderConsolePage(dir) });
  const config = HostConfigSchema.parse({
    ROUTER_URL: router.router.nodeUrl,
    ROUTER_SECRET: BENCH_SECRET,
    NODE_ID: NODE,
    WORKING_DIR: dir,
    DATA_DIR: dir,
    // `yes` in the PTY costs the sandbox nothing per byte; its per-command cost is the sandbox part's.
    SANDBOX: "off",
  });
  // A HOME of its own: the shell starts without this machine's rc files.
  const env = { ...process.env, HOME: dir };
  const host = createHost(config, { logger: createLogger({ level: "silent" }), env });
  // The manager's own peak spans every terminal; each session's is the one phase's.
  const sessions: TerminalSession[] = [];
  const open = host.terminals.manager.open.bind(host.terminals.manager);
  host.terminals.manager.open = async (request) => {
    const session = await open(request);
    sessions.push(session);
    return session;
  };
  host.start();
  cleanup.add(() => host.stop());
  await host.ready();
  // The terminal capability comes once node-pty has loaded, in a second registration.
  const deadline = performance.now() + 10_000;
  while (!router.router.registry.get(NODE)?.capabilities.includes("terminal")) {
    if (performance.now() > deadline)
      throw new Error(`${NODE} never offered terminals (node-pty did not load)`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const page = await openConsoleReader(router, USER, cleanup);
  return { router, page, sessions, windowBytes: config.TERMINAL_BUFFER_BYTES };
}

/** Round trips of CHATS chat messages, one after another, in ms. */
async function chatRoundTrips(router: InProcessRouter): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < CHATS; i++) {
    const answered = router.nextReply(USER);
    const sent = performance.now();
    await router.chat.receive({ userId: USER, text: "/tasks" });
    await answered;
    times.push(performance.now() - sent);
    await new Promise((resolve) => setTimeout(resolve, CHAT_GAP_MS));
  }
  return times;
}

export async function measureTerminalFlood(cleanup: Cleanup): Promise<Figure[]> {
  const { router, page, sessions, windowBytes: window } = await startWorld(cleanup);
  const p = (values: number[], at: number) => round(percentile(sortedCopy(values), at), 2);
  await chatRoundTrips(router); // warm-up
  const baseline = await chatRoundTrips(router);
  const figures: Figure[] = [
    info("chat round trip, no terminal: p50", p(baseline, 50), "ms", `${CHATS} × /tasks, one at a time`),
    info("chat round trip, no terminal: p99", p(baseline, 99), "ms"),
  ];
  const limit = round(3 * p(baseline, 50) + 20, 1);
  for (const pace of [{ kind: "fast" }, SLOW] as const) {
    await page.open(NODE, FLOOD, pace);
    await new Promise((resolve) => setTimeout(resolve, FLOOD_WARM_UP_MS));
    const started = performance.now();
    const before = page.output.bytes;
    const times = await chatRoundTrips(router);
    const seconds = (performance.now() - started) / 1000;
    const received = page.output.bytes - before;
    const held = sessions.at(-1)?.peakBufferedBytes ?? null;
    await page.close();
    const reader = `${pace.kind} reader's`;
    const how =
      pace.kind === "fast"
        ? "the page acknowledges each frame as it comes"
        : `the page acknowledges ${pace.bytes / 1024} KiB every ${pace.everyMs} ms`;
    figures.push(
      atMost(
        `chat round trip beside a ${reader} flood: p50`,
        p(times, 50),
        "ms",
        limit,
        `${how}; target: 3 × the no-terminal p50 + 20 ms`,
      ),
      info(`chat round trip beside a ${reader} flood: p99`, p(times, 99), "ms"),
      info(`terminal output to a ${pace.kind} reader`, round(received / seconds / 1e6, 2), "MB/s"),
      atMost(
        `terminal output held on the host at most, ${pace.kind} reader`,
        held,
        "bytes",
        window + OUTPUT_CHUNK_BYTES,
        `read from the PTY, not yet acknowledged; target: TERMINAL_BUFFER_BYTES (${window}) + one frame`,
      ),
      info(
        `terminal output unacknowledged by the page at most, ${pace.kind} reader`,
        page.output.peakUnacked,
        "bytes",
      ),
    );
  }
  return figures;
}
