// pino-roll ships no types; this declares the part of its API that log-file.ts uses.
declare module "pino-roll" {
  import type { EventEmitter } from "node:events";

  export interface PinoRollOptions {
    /** Path without the number: `<file>.<n><extension>` is written. */
    file: string;
    /** Rotate at this size: a number of MB, or `"512k"`, `"10m"`, `"1g"`. */
    size?: string | number;
    /** Rotate `"daily"`, `"hourly"` or every so many milliseconds. */
    frequency?: "daily" | "hourly" | number;
    extension?: string;
    /** Keep `count` files; with `removeOtherLogFiles`, those from earlier runs count too. */
    limit?: { count: number; removeOtherLogFiles?: boolean };
    symlink?: boolean;
    dateFormat?: string;
    mkdir?: boolean;
    // The rest goes to sonic-boom, which writes the file.
    sync?: boolean;
    mode?: number;
  }

  /** A sonic-boom stream: 'ready' after every open (the first, and each rotation). */
  export interface RollingFile extends EventEmitter {
    /** The file being written now. */
    readonly file: string;
    write(line: string): boolean;
    flushSync(): void;
    end(): void;
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<RollingFile>;
}
