import { type Check, fail, ok } from "../check.ts";

// Does Feishu (Lark) accept the app's id and secret? Asked the way the SDK asks first: for a
// tenant access token. The token is thrown away, never shown.

const CONSOLE_FIX =
  "copy App ID and App Secret again from the Feishu developer console (Credentials & Basic Info) into FEISHU_APP_ID and FEISHU_APP_SECRET";

export interface FeishuSettings {
  appId: string;
  appSecret: string;
  /** "feishu", "lark", or a base URL (a proxy; the fake server in tests). */
  domain: string;
}

export function feishuBaseUrl(domain: string): string {
  if (domain === "feishu") return "https://open.feishu.cn";
  if (domain === "lark") return "https://open.larksuite.com";
  return domain.replace(/\/+$/, "");
}

/** `title` names the adapter when the config has several (a named adapter: "Feishu work"). */
export async function checkFeishuCredentials(
  settings: FeishuSettings,
  options: { fetch: typeof fetch; timeoutMs: number },
  title = "Feishu",
): Promise<Check> {
  const base = feishuBaseUrl(settings.domain);
  let status: number;
  let body: { code?: unknown; msg?: unknown; tenant_access_token?: unknown };
  try {
    const response = await options.fetch(`${base}/open-apis/auth/v3/tenant_access_token/internal`, {
      method: "POST",
      headers: { "Content-Type": "application/json; charset=utf-8" },
      body: JSON.stringify({ app_id: settings.appId, app_secret: settings.appSecret }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    status = response.status;
    body = (await response.json().catch(() => ({}))) as typeof body;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return fail(
      title,
      `cannot reach ${base} (${cause ?? (error as Error).message})`,
      "check FEISHU_DOMAIN and this machine's network",
    );
  }
  if (body.code === 0 && typeof body.tenant_access_token === "string")
    return ok(title, `${base} accepts app ${settings.appId} (a tenant token was issued)`);
  const why =
    typeof body.code === "number" ? `code ${body.code}: ${String(body.msg ?? "")}` : `HTTP ${status}`;
  return fail(title, `${base} refuses app ${settings.appId} (${why})`, CONSOLE_FIX);
}
