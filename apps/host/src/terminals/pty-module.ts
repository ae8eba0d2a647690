// node-pty (as @lydell/node-pty: the same API with a prebuilt binary per platform, nothing to
// compile), loaded on first use: a native addon and an optional dependency, so a machine where it
// is missing or does not load still runs the host, without terminals.

/** What the terminal code uses of a node-pty process. */
export interface PtyProcess {
  readonly pid: number;
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (event: { exitCode: number; signal?: number }) => void): { dispose(): void };
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Stops reading the PTY: a program that keeps writing blocks once the kernel's buffer is full. */
  pause(): void;
  resume(): void;
  kill(signal?: string): void;
}

export interface PtySpawnOptions {
  name: string;
  cols: number;
  rows: number;
  cwd: string;
  env: Record<string, string>;
}

export type SpawnPty = (file: string, args: string[], options: PtySpawnOptions) => PtyProcess;

/** Resolves with node-pty's spawn, or rejects with why it cannot be loaded here. */
export type LoadPty = () => Promise<SpawnPty>;

export const loadNodePty: LoadPty = async () => {
  const pty = await import("@lydell/node-pty");
  return (file, args, options) => pty.spawn(file, args, options);
};

/** The first line of an error's message: why node-pty did not load, or a program did not start. */
export function errorSummary(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0]?.trim() || "unknown error";
}
