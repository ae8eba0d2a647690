import { createOpenAIModelClient, describeProviderError, type ModelClient } from "@phonework/host";
import { type Check, fail, ok, skipped, warn } from "./check.ts";

// The assistant's model: one tiny chat completion, with the client the host builds (the `openai`
// SDK), no retries and a short timeout.

const TITLE = "model";

export interface ModelSettings {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  OPENAI_MODEL: string;
}

export type ModelClientFactory = typeof createOpenAIModelClient;

export async function checkModelEndpoint(
  config: ModelSettings,
  options: { offline: boolean; timeoutMs: number; createClient?: ModelClientFactory },
): Promise<Check> {
  const { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: baseURL, OPENAI_MODEL: model } = config;
  if (!apiKey)
    return warn(
      TITLE,
      "no model configured: only commands work (/shell, /sessions…); the assistant does not answer",
      "set OPENAI_API_KEY (plus OPENAI_BASE_URL and OPENAI_MODEL for a provider other than OpenAI)",
    );
  if (options.offline) return skipped(TITLE, "--offline");
  const endpoint = baseURL ?? "https://api.openai.com/v1";
  const client: ModelClient = (options.createClient ?? createOpenAIModelClient)({
    apiKey,
    model,
    maxRetries: 0,
    timeoutMs: options.timeoutMs,
    ...(baseURL ? { baseURL } : {}),
  });
  const started = Date.now();
  try {
    await client.complete({
      messages: [{ role: "user", content: "Reply with the single word OK." }],
      tools: [],
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    return ok(TITLE, `${model} at ${endpoint} answered in ${Date.now() - started} ms`);
  } catch (error) {
    return failure(error, endpoint, model);
  }
}

function failure(error: unknown, endpoint: string, model: string): Check {
  const status = (error as { status?: unknown }).status;
  const why = describeProviderError(error);
  if (status === 401 || status === 403)
    return fail(
      TITLE,
      `${endpoint} refused OPENAI_API_KEY (${why})`,
      "set OPENAI_API_KEY to a valid key for this endpoint (OPENAI_BASE_URL)",
    );
  if (status === 404)
    return fail(
      TITLE,
      `${endpoint} has no model ${model} (${why})`,
      "check OPENAI_MODEL, and OPENAI_BASE_URL (it usually ends in /v1)",
    );
  if (status === 429)
    return warn(TITLE, `${endpoint} is rate-limiting this key (${why})`, "check the account's quota");
  if (typeof status === "number") return fail(TITLE, `${endpoint} failed the request (${why})`);
  return fail(TITLE, `cannot reach ${endpoint} (${why})`, "check OPENAI_BASE_URL and this machine's network");
}
