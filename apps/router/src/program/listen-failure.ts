import { StartupError } from "@phonework/runtime";

// A port already taken or not allowed is a problem with the machine, not a bug: one line naming
// the address and the setting to change (exitOnError exits 1 with it), instead of a stack trace.

const HINTS: Record<string, string> = {
  EADDRINUSE: "another process is using that port; stop it or set ROUTER_PORT",
  EACCES: "not allowed to bind there (ports below 1024 need privileges); set ROUTER_PORT",
  EADDRNOTAVAIL: "this machine has no such address; set ROUTER_HOST",
};

/** `error` from listen() as a StartupError when the address is the problem; otherwise unchanged. */
export function listenFailure(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const hint = code ? HINTS[code] : undefined;
  if (!hint) return error;
  return new StartupError(`router cannot listen on ${host}:${port} (${code}): ${hint}`, { cause: error });
}
