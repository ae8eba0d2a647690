import type { Cleanup } from "./cleanup.ts";
import type { InProcessRouter } from "./in-process-router.ts";
import { WebSocket } from "./ws.ts";

// A web console page as the bench sees it: signed in through the chat's /console link, then a
// plain WebSocket that opens a terminal on a node and reads its output, acknowledging each frame
// as it comes (fast) or `bytes` every `everyMs` (slow), as a browser writing to a slow screen would.

export type Pace = { kind: "fast" } | { kind: "slow"; bytes: number; everyMs: number };

export interface ConsoleReader {
  /** Output received since the terminal opened, and the most ever received but not acknowledged. */
  readonly output: { bytes: number; peakUnacked: number };
  /** Opens a terminal on `node`, types `input` once it runs, and reads its output at `pace`. */
  open(node: string, input: string, pace: Pace): Promise<void>;
  /** Closes the terminal; resolves once the router says it ended. */
  close(): Promise<void>;
}

/** Asks for a link in the chat as `userId`, signs in with it, and opens the console's socket. */
export async function openConsoleReader(
  router: InProcessRouter,
  userId: string,
  cleanup: Cleanup,
): Promise<ConsoleReader> {
  const origin = new URL(router.url).origin;
  const reply = router.nextReply(userId, (text) => text.includes("/console/login?code="));
  await router.chat.receive({ userId, text: "/console" });
  const link = /https?:\/\/\S+\/console\/login\?code=[\w-]+/.exec(await reply)?.[0];
  const code = link ? new URL(link).searchParams.get("code") : null;
  if (!code) throw new Error("/console answered with no sign-in link");
  const signedIn = await fetch(`${origin}/console/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: `code=${encodeURIComponent(code)}`,
    redirect: "manual",
  });
  const cookie = signedIn.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error(`the console sign-in set no cookie (HTTP ${signedIn.status})`);

  const socket = new WebSocket(`${origin.replace(/^http/, "ws")}/console/ws`, {
    headers: { cookie, origin },
  });
  cleanup.add(() => socket.terminate());
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return new PageSocket(socket, cleanup);
}

class PageSocket implements ConsoleReader {
  readonly output = { bytes: 0, peakUnacked: 0 };
  private id = "";
  private unacked = 0;
  private pace: Pace = { kind: "fast" };
  private ticker: NodeJS.Timeout | undefined;
  private readonly waiting = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();

  constructor(
    private readonly socket: WebSocket,
    cleanup: Cleanup,
  ) {
    cleanup.add(() => clearInterval(this.ticker));
    socket.on("message", (data) => this.receive(JSON.parse(String(data)) as Record<string, unknown>));
  }

  async open(node: string, input: string, pace: Pace): Promise<void> {
    this.pace = pace;
    this.output.bytes = 0;
    this.output.peakUnacked = 0;
    this.unacked = 0;
    const started = this.next("term_started");
    const opened = this.next("term_opened");
    this.send({ type: "term_open", ref: "flood", node, cols: 120, rows: 40 });
    await started;
    await opened;
    if (pace.kind === "slow")
      this.ticker = setInterval(() => {
        if (this.unacked > 0) this.ack(Math.min(this.unacked, pace.bytes));
      }, pace.everyMs);
    this.send({ type: "term_input", id: this.id, data: input });
  }

  async close(): Promise<void> {
    clearInterval(this.ticker);
    const exited = this.next("term_exit");
    this.send({ type: "term_close", id: this.id });
    await exited;
  }

  private receive(frame: Record<string, unknown>): void {
    if (frame.type === "term_started") this.id = String(frame.id);
    if (frame.type === "term_failed")
      this.waiting.get("term_started")?.reject(new Error(`no terminal: ${String(frame.message)}`));
    if (frame.type === "term_output") {
      const bytes = Number(frame.bytes);
      this.output.bytes += bytes;
      this.unacked += bytes;
      this.output.peakUnacked = Math.max(this.output.peakUnacked, this.unacked);
      if (this.pace.kind === "fast") this.ack(bytes);
    }
    this.waiting.get(String(frame.type))?.resolve();
    this.waiting.delete(String(frame.type));
  }

  private ack(bytes: number): void {
    this.unacked -= bytes;
    this.send({ type: "term_ack", id: this.id, bytes });
  }

  private next(type: string): Promise<void> {
    return new Promise((resolve, reject) => this.waiting.set(type, { resolve, reject }));
  }

  private send(frame: object): void {
    this.socket.send(JSON.stringify(frame));
  }
}
