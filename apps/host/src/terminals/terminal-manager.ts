import type { Logger } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import { errorSummary, type LoadPty, type SpawnPty } from "./pty-module.ts";
import { terminalEnv } from "./terminal-env.ts";
import { TerminalRefusal } from "./terminal-refusal.ts";
import { TerminalSession } from "./terminal-session.ts";

// The host's terminals, from chat and from the router link alike: node-pty loaded once, at most
// MAX_TERMINALS programs running at a time, each in WORKING_DIR with an environment stripped of
// PhoneWork's secrets, started through `wrap` (the sandbox's seam).

/**
 * Turns the program to start into the one that actually starts, e.g. inside a sandbox for this
 * user's chat. The default starts it as it is.
 */
export type TerminalWrap = (file: string, args: string[], ctx: ChatOwner) => { file: string; args: string[] };

export interface TerminalLimits {
  /** Programs running at once (MAX_TERMINALS). */
  maxTerminals: number;
  /** TERMINAL_IDLE_S, in ms. */
  idleMs: number;
  /** TERMINAL_BUFFER_BYTES. */
  bufferBytes: number;
}

export interface TerminalManagerDeps {
  loadPty: LoadPty;
  workingDir: string;
  /** The host's environment; what a terminal gets is this without PhoneWork's secrets. */
  env: NodeJS.ProcessEnv;
  /** Values a terminal's environment may not hold under any name (the host's configured secrets). */
  secretValues: ReadonlyArray<string | undefined>;
  limits: TerminalLimits;
  wrap?: TerminalWrap;
  killGraceMs?: number;
  logger: Logger;
}

export interface OpenTerminal {
  owner: ChatOwner;
  /** A command for the shell to run; without it, the user's login shell. */
  command?: string;
  cols: number;
  rows: number;
}

type Unavailable = { ok: false; reason: string };
export type TerminalAvailability = { ok: true } | Unavailable;

export interface TerminalStats {
  /** Terminals whose program runs. */
  open: number;
  /** Output held for all of them now (read, not yet acknowledged). */
  bufferedBytes: number;
  /** The most one terminal has ever held. */
  peakBufferedBytes: number;
  /** Terminals paused now because their consumer is behind. */
  paused: number;
}

export class TerminalManager {
  private loading: Promise<SpawnPty | Unavailable> | undefined;
  private state: TerminalAvailability | undefined;
  private readonly live = new Set<TerminalSession>();
  /** Opens under way: they hold a place under the limit while node-pty loads. */
  private opening = 0;
  private peak = 0;
  private stopping = false;

  constructor(private readonly deps: TerminalManagerDeps) {}

  /** Loads node-pty (once) and says whether terminals work here. */
  async availability(): Promise<TerminalAvailability> {
    const loaded = await this.load();
    return typeof loaded === "function" ? { ok: true } : loaded;
  }

  /** What `availability` found, or undefined while it has not finished. */
  get available(): TerminalAvailability | undefined {
    return this.state;
  }

  /** Starts a program on a new PTY; refuses with a TerminalRefusal (limit, unavailable, spawn failure). */
  async open(request: OpenTerminal): Promise<TerminalSession> {
    const { maxTerminals } = this.deps.limits;
    if (this.live.size + this.opening >= maxTerminals)
      throw new TerminalRefusal(
        "QUEUE_FULL",
        `this host already runs ${maxTerminals} terminal${maxTerminals === 1 ? "" : "s"} (MAX_TERMINALS); close one first`,
      );
    this.opening++;
    try {
      const spawn = await this.load();
      if (typeof spawn !== "function")
        throw new TerminalRefusal("INTERNAL", `terminals are unavailable on this host: ${spawn.reason}`);
      if (this.stopping) throw new TerminalRefusal("INTERNAL", "the host is stopping");
      return this.start(spawn, request);
    } finally {
      this.opening--;
    }
  }

  stats(): TerminalStats {
    let bufferedBytes = 0;
    let paused = 0;
    for (const session of this.live) {
      bufferedBytes += session.bufferedBytes;
      this.peak = Math.max(this.peak, session.peakBufferedBytes);
      if (session.isPaused) paused++;
    }
    return { open: this.live.size, bufferedBytes, peakBufferedBytes: this.peak, paused };
  }

  /** Closes every terminal, and opens no more (the host is stopping). */
  async closeAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.live].map((session) => session.close("stopping")));
  }

  private start(spawn: SpawnPty, request: OpenTerminal): TerminalSession {
    const { env, limits, workingDir, logger } = this.deps;
    const shell = env.SHELL || "/bin/sh";
    // A login shell, as over ssh: the user's profile puts back their own environment.
    const [file, args] = request.command ? [shell, ["-c", request.command]] : [shell, ["-l"]];
    const wrapped = this.deps.wrap?.(file, args, request.owner) ?? { file, args };
    let pty: ReturnType<SpawnPty>;
    try {
      pty = spawn(wrapped.file, wrapped.args, {
        name: "xterm-256color",
        cols: request.cols,
        rows: request.rows,
        cwd: workingDir,
        env: terminalEnv(env, this.deps.secretValues),
      });
    } catch (error) {
      throw new TerminalRefusal("INTERNAL", `could not start ${wrapped.file}: ${errorSummary(error)}`);
    }
    const session = new TerminalSession({
      pty,
      owner: request.owner,
      label: request.command ?? shell,
      bufferBytes: limits.bufferBytes,
      idleMs: limits.idleMs,
      ...(this.deps.killGraceMs !== undefined ? { killGraceMs: this.deps.killGraceMs } : {}),
      logger,
    });
    this.live.add(session);
    void session.ended.then(() => {
      this.peak = Math.max(this.peak, session.peakBufferedBytes);
      this.live.delete(session);
    });
    logger.info({ pid: session.pid, userId: request.owner.userId, label: session.label }, "terminal opened");
    return session;
  }

  private load(): Promise<SpawnPty | Unavailable> {
    this.loading ??= this.deps.loadPty().then(
      (spawn) => {
        this.state = { ok: true };
        return spawn;
      },
      (error: unknown) => {
        const unavailable: Unavailable = { ok: false, reason: errorSummary(error) };
        this.state = unavailable;
        this.deps.logger.warn(
          { reason: unavailable.reason },
          "terminals are unavailable: node-pty did not load",
        );
        return unavailable;
      },
    );
    return this.loading;
  }
}
