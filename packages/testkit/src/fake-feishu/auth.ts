import type { IncomingHttpHeaders } from "node:http";
import { FeishuCode, type FeishuError, feishuError } from "./errors.ts";
import { hex } from "./ids.ts";

// tenant_access_token issuing and checking, as Feishu does it: a token lives `expire` seconds; asking
// again while the current one has more than 30 minutes left returns that same token (with the
// remaining lifetime), otherwise a fresh one. Older tokens stay valid until they expire.

const REUSE_THRESHOLD_MS = 30 * 60 * 1000;

export interface TokenGrant {
  tenant_access_token: string;
  /** Seconds until expiry. */
  expire: number;
}

export class TenantTokens {
  private readonly expiries = new Map<string, number>();
  private current: string | undefined;
  requests = 0;

  constructor(
    private readonly appId: string,
    private readonly appSecret: string,
    private readonly ttlS: number,
  ) {}

  issue(body: unknown): TokenGrant | FeishuError {
    this.requests += 1;
    const { app_id, app_secret } = (body ?? {}) as { app_id?: unknown; app_secret?: unknown };
    if (app_id !== this.appId) return feishuError(400, FeishuCode.invalidAppId, "invalid param");
    if (app_secret !== this.appSecret)
      return feishuError(400, FeishuCode.invalidAppSecret, "app secret invalid");
    const now = Date.now();
    const currentExpiry = this.current ? (this.expiries.get(this.current) ?? 0) : 0;
    if (this.current && currentExpiry - now > REUSE_THRESHOLD_MS) {
      return { tenant_access_token: this.current, expire: Math.floor((currentExpiry - now) / 1000) };
    }
    const token = `t-g${hex(20)}`;
    this.expiries.set(token, now + this.ttlS * 1000);
    this.current = token;
    return { tenant_access_token: token, expire: this.ttlS };
  }

  /** Every token issued so far (tests check none of them leaks into a log). */
  issued(): string[] {
    return [...this.expiries.keys()];
  }

  /** Undefined when the request carries a live tenant token; otherwise Feishu's auth error. */
  check(headers: IncomingHttpHeaders): FeishuError | undefined {
    const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? "");
    if (!match?.[1]) {
      return feishuError(
        400,
        FeishuCode.missingAccessToken,
        "Missing access token for authorization. Please make a request with token attached.",
      );
    }
    const expiry = this.expiries.get(match[1]);
    if (expiry === undefined || expiry <= Date.now()) {
      return feishuError(
        400,
        FeishuCode.invalidAccessToken,
        "Invalid access token for authorization. Please make a request with token attached.",
      );
    }
    return undefined;
  }
}
