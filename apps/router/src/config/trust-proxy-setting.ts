import { isIP } from "node:net";
import { z } from "zod";

// TRUST_PROXY as the config reads it: `off` (the default), `on`, or the proxies' addresses and CIDR
// ranges (`127.0.0.1,10.0.0.0/8`). What the setting means for connections is the front door's
// (front-door/trust-proxy.ts).

export type TrustProxy = { kind: "off" } | { kind: "all" } | { kind: "list"; entries: string[] };

function validEntry(entry: string): boolean {
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (version === 4 ? 32 : 128);
}

export const trustProxyField = () =>
  z
    .preprocess(
      (value) => (Array.isArray(value) ? value.join(",") : value),
      z.string({ error: "must be off, on, or proxy addresses and CIDR ranges (comma-separated)" }),
    )
    .default("off")
    .transform((value, ctx): TrustProxy => {
      const trimmed = value.trim().toLowerCase();
      if (trimmed === "off" || trimmed === "") return { kind: "off" };
      if (trimmed === "on") return { kind: "all" };
      const entries = trimmed
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean);
      const bad = entries.filter((entry) => !validEntry(entry));
      if (bad.length > 0)
        ctx.addIssue({
          code: "custom",
          message: `must be off, on, or proxy addresses and CIDR ranges (not ${bad.join(", ")})`,
        });
      return { kind: "list", entries };
    });
