import { loadLarkClient } from "@phonework/router";
import { createLogger } from "@phonework/runtime";
import { type Check, fail, ok } from "./check.ts";

// Does Feishu (Lark) accept the app's id and secret? Asked for a tenant access token through a
// `lark.Client` built exactly as the router's Feishu adapter builds it (its domain, its own token
// cache), so the doctor cannot pass while the router's client fails. The token is thrown away,
// never shown; the SDK's own log lines go nowhere.

const CONSOLE_FIX =
  "copy App ID and App Secret again from the Feishu developer console (Credentials & Basic Info) into FEISHU_APP_ID and FEISHU_APP_SECRET";

export interface FeishuSettings {
  appId: string;
  appSecret: string;
  /** "feishu", "lark", or a base URL (a proxy; the fake server in tests). */
  domain: string;
}

/** `title` names the adapter when the config has several (a named adapter: "Feishu work"). */
export async function checkFeishuCredentials(
  settings: FeishuSettings,
  options: { timeoutMs: number },
  title = "Feishu",
): Promise<Check> {
  const { createLarkClient } = await loadLarkClient();
  const client = createLarkClient({ ...settings, logger: createLogger({ level: "silent" }) });
  const base = client.domain; // the URL the SDK asks: "feishu" and "lark" resolved
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error("timeout"), { code: "no answer in time" })),
      options.timeoutMs,
    );
  });
  try {
    // What every API request through the client asks first.
    const token: unknown = await Promise.race([client.tokenManager.getTenantAccessToken(), timeout]);
    if (typeof token === "string" && token !== "")
      return ok(title, `${base} accepts app ${settings.appId} (a tenant token was issued)`);
    return fail(title, `${base} refuses app ${settings.appId} (no tenant token issued)`, CONSOLE_FIX);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) return fail(title, `${base} refuses app ${settings.appId} (${refusal})`, CONSOLE_FIX);
    const code = (error as { code?: unknown }).code;
    return fail(
      title,
      `cannot reach ${base} (${typeof code === "string" ? code : (error as Error).message})`,
      "check FEISHU_DOMAIN and this machine's network",
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Feishu's answer when it refused: an HTTP error carries it as the response's body (an
 * AxiosError), a 200 without a token as the SDK's message ("failed to get tenant_access_token,
 * code: …, msg: …").
 */
function refusalOf(error: unknown): string | undefined {
  const response = (error as { response?: { status?: unknown; data?: { code?: unknown; msg?: unknown } } })
    .response;
  if (response) {
    const { code, msg } = response.data ?? {};
    return typeof code === "number"
      ? `code ${code}: ${String(msg ?? "")}`
      : `HTTP ${String(response.status)}`;
  }
  const sdk = /code: (-?\d+), msg: (.*)$/.exec((error as Error)?.message ?? "");
  return sdk ? `code ${sdk[1]}: ${sdk[2]}` : undefined;
}
