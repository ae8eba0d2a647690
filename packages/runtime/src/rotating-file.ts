import { closeSync, fstatSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

// A log file rotated by size: <dir>/<name>.1.log, <name>.2.log, …; a run appends to the highest
// number there, the next file is started once one reaches `maxBytes`, and only the newest `keep`
// are left (those of earlier runs count too). Each line is written before write() returns, so the
// last lines before process.exit are in the file. The file naming is pino-roll's, which did this
// before; it needs date-fns (28 MB installed) for the date-named files we never use.

export interface RotatingFileOptions {
  dir: string;
  name: string;
  maxBytes: number;
  /** Files kept, the one being written included. */
  keep: number;
  /** Mode of the files created (an existing file keeps its own). */
  mode: number;
  /** After the first open and after each rotation, with the file now written. */
  onOpen: (file: string) => void;
  /** A write, a rotation or a removal failed; the line is dropped and logging goes on. */
  onError: (error: Error) => void;
}

/** What pino writes finished lines to. */
export interface RotatingFile {
  /** The numbered file being written now. */
  readonly file: string;
  write(line: string): boolean;
  end(): void;
}

/** Opens (or creates) the newest numbered file; throws when it cannot be opened. */
export function openRotatingFile(options: RotatingFileOptions): RotatingFile {
  const { dir, name, maxBytes, keep, mode } = options;
  const pathOf = (n: number) => join(dir, `${name}.${n}.log`);
  let number = Math.max(1, ...numbered(dir, name));
  let fd = openSync(pathOf(number), "a", mode);
  let size = fstatSync(fd).size;
  let closed = false;

  const rotate = () => {
    const next = openSync(pathOf(number + 1), "a", mode);
    closeSync(fd);
    fd = next;
    number += 1;
    size = 0;
    options.onOpen(pathOf(number));
    for (const old of numbered(dir, name).slice(0, -keep)) rmSync(pathOf(old), { force: true });
  };

  options.onOpen(pathOf(number));
  return {
    get file() {
      return pathOf(number);
    },
    write(line) {
      if (closed) return false;
      try {
        size += writeSync(fd, line);
        if (size >= maxBytes) rotate();
      } catch (error) {
        options.onError(error as Error);
      }
      return true;
    },
    end() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

/** The numbers of `<name>.<n>.log` in `dir`, lowest first. */
function numbered(dir: string, name: string): number[] {
  const numbers: number[] = [];
  for (const entry of readdirSync(dir)) {
    if (!entry.startsWith(`${name}.`) || !entry.endsWith(".log")) continue;
    const middle = entry.slice(name.length + 1, -".log".length);
    if (/^\d+$/.test(middle)) numbers.push(Number(middle));
  }
  return numbers.sort((a, b) => a - b);
}

/** `10m`, `512k`, `1g` (binary units) or a plain number of bytes. */
export function parseLogSize(size: string): number {
  const match = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(size.trim());
  if (!match) throw new Error(`log size ${size} is not a size such as 10m or 512k`);
  const unit = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match[2] ?? "").toLowerCase()] ?? 1;
  return Number(match[1]) * unit;
}
