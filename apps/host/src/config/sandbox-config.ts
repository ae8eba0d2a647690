import { pathList } from "@phonework/runtime";
import { z } from "zod";

// The sandbox's config keys, spread into the host's. SANDBOX_NETWORK takes on or off only: a list
// of domains would need a filtering proxy, which bubblewrap alone does not have, and a setting that
// is silently not enforced is worse than one refused at start.

export const sandboxFields = {
  /** auto: sandboxed where bubblewrap works (one warning where not); on: refuse to start without it. */
  SANDBOX: z.enum(["auto", "on", "off"], { error: "must be auto, on or off" }).default("auto"),
  SANDBOX_NETWORK: z
    .preprocess(
      (value) => (Array.isArray(value) ? value.join(",") : value),
      z.string({ error: "must be on or off" }).transform((value) => value.trim().toLowerCase()),
    )
    .pipe(
      z.enum(["on", "off"], {
        error: (issue) =>
          `must be on or off, not ${JSON.stringify(issue.input)}: the sandbox (bubblewrap, driven directly) can only cut the network off entirely, so a list of allowed domains cannot be enforced and is refused rather than ignored`,
      }),
    )
    .default("on"),
  /** Paths commands may write besides WORKING_DIR (e.g. ~/.cache); only those that exist. */
  SANDBOX_WRITABLE: pathList(),
  /** Paths commands may not see at all, besides the built-in ones (see sandbox-policy.ts). */
  SANDBOX_HIDE: pathList(),
};

export type SandboxNetwork = "on" | "off";
