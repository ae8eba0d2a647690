import { readFileSync } from "node:fs";

// The default for MAX_CONNECTIONS: what the process may open, less a margin for what it opens
// besides client connections (databases and their WAL files, the log, outgoing HTTPS to the chat
// platforms and the model). Past it the server drops new connections at once, instead of accept()
// failing with EMFILE and the router being unable to open anything at all. Node raises the soft
// limit to the hard one at start, so this reads the limit the router really has.

/** The soft "Max open files" of this process, or undefined where /proc is not there (or says unlimited). */
export function openFilesLimit(
  read: () => string = () => readFileSync("/proc/self/limits", "utf8"),
): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  const limit = Number(soft);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}

/** The limit less 5% (at least 100); undefined (no cap) when the limit is unknown. */
export function defaultMaxConnections(limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  const margin = Math.max(100, Math.ceil(limit * 0.05));
  return Math.max(16, limit - margin);
}
