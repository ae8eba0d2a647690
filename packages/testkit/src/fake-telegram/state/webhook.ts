import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Update } from "grammy/types";
import { pause } from "./pause.ts";
import type { UpdateQueue } from "./updates.ts";

// Webhook mode: while a webhook is set, queued updates are POSTed to it one at a time, in order, with
// X-Telegram-Bot-Api-Secret-Token when a secret was given. Anything but a 2xx answer (or no answer
// in time) is recorded and retried after `retryMs`; the update stays pending until delivered. A 2xx
// answer carrying a JSON body with a `method` is a webhook reply, which the server executes.

export interface WebhookConfig {
  url: string;
  secretToken?: string;
  maxConnections: number;
}

export interface WebhookAttempt {
  updateId: number;
  url: string;
  at: number;
  /** The HTTP status, or undefined when no answer came (refused, reset, timed out). */
  status?: number;
  /** Why the attempt failed, worded like getWebhookInfo's last_error_message. */
  error?: string;
}

export interface WebhookDeliveryOptions {
  retryMs: number;
  timeoutMs: number;
  now: () => number;
  onReply: (body: Record<string, unknown>) => Promise<void>;
}

export class WebhookDelivery {
  config: WebhookConfig | undefined;
  readonly attempts: WebhookAttempt[] = [];
  lastError: { date: number; message: string } | undefined;
  private running = false;
  private readonly stop = new AbortController();

  constructor(
    private readonly updates: UpdateQueue,
    private readonly options: WebhookDeliveryOptions,
  ) {
    updates.subscribe(() => this.kick());
  }

  set(config: WebhookConfig | undefined): void {
    this.config = config;
    if (!config) this.lastError = undefined;
    this.updates.notify();
  }

  close(): void {
    this.stop.abort();
  }

  private kick(): void {
    if (this.running || !this.config || this.stop.signal.aborted) return;
    this.running = true;
    void this.drain().finally(() => {
      this.running = false;
      // An update queued while the loop was finishing must not wait for the next one.
      if (this.config && this.updates.pending().length) this.kick();
    });
  }

  private async drain(): Promise<void> {
    for (;;) {
      const config = this.config;
      const update = this.updates.deliverable(1)[0];
      if (!config || !update || this.stop.signal.aborted) return;
      const attempt = await this.post(config, update);
      this.attempts.push(attempt);
      if (attempt.error === undefined) {
        this.updates.confirm(update.update_id + 1, "webhook", attempt.at);
        continue;
      }
      this.lastError = { date: Math.floor(attempt.at / 1000), message: attempt.error };
      await pause(this.options.retryMs, this.stop.signal);
    }
  }

  private async post(config: WebhookConfig, update: Update): Promise<WebhookAttempt> {
    const at = this.options.now();
    const base = { updateId: update.update_id, url: config.url, at };
    try {
      const answer = await postJson(config, JSON.stringify(update), this.options.timeoutMs, this.stop.signal);
      if (answer.status < 200 || answer.status > 299) {
        return {
          ...base,
          status: answer.status,
          error: `Wrong response from the webhook: ${answer.status} ${answer.statusText}`,
        };
      }
      const reply = parseReply(answer);
      if (reply) await this.options.onReply(reply);
      return { ...base, status: answer.status };
    } catch (error) {
      return { ...base, error: (error as Error).message };
    }
  }
}

interface Answer {
  status: number;
  statusText: string;
  contentType: string;
  body: string;
}

// node:http rather than fetch: one connection per attempt, nothing pooled in a global dispatcher
// that would outlive the fake or keep the test's webhook server from closing.
function postJson(
  config: WebhookConfig,
  body: string,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<Answer> {
  const url = new URL(config.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  };
  if (config.secretToken) headers["x-telegram-bot-api-secret-token"] = config.secretToken;
  const timeout = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      { method: "POST", headers, agent: false, signal: AbortSignal.any([stop, timeout]) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? "",
            contentType: String(res.headers["content-type"] ?? ""),
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", (error) =>
      reject(new Error(timeout.aborted ? "Read timeout expired" : connectionError(error))),
    );
    req.end(body);
  });
}

function parseReply(answer: Answer): Record<string, unknown> | undefined {
  if (!answer.contentType.includes("application/json") || !answer.body) return undefined;
  try {
    const parsed = JSON.parse(answer.body) as Record<string, unknown> | null;
    return parsed && typeof parsed.method === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function connectionError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ECONNREFUSED") return "Connection refused";
  if (code === "ECONNRESET") return "Connection reset by peer";
  return `Failed to connect: ${(error as Error).message}`;
}
