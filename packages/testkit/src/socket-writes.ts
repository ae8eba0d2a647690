import type { Socket } from "node:net";

/**
 * Calls `onWrite` at each write the socket hands to its handle (`_write`, or `_writev` for a
 * corked batch): how many writes a code path costs. Counting, not replacing: each call still goes
 * to the real handle, so the bytes still flow.
 */
export function countSocketWrites(socket: Socket, onWrite: () => void): void {
  const counted = socket as unknown as Record<"_write" | "_writev", (...args: unknown[]) => void>;
  for (const name of ["_write", "_writev"] as const) {
    const real = counted[name].bind(socket);
    counted[name] = (...args: unknown[]) => {
      onWrite();
      real(...args);
    };
  }
}
