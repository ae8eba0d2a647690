// What a platform's webhook verifier says about one HTTP request. The platform checks what only it
// knows how to check (its signature scheme, decryption, its token); the rules every webhook shares
// (a freshness window on the signed time, dedupe, logging of refusals) are applied once, in
// guard-webhook.ts, to whatever the verifier lets through.

export interface WebhookRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as received: signatures are over these bytes. */
  rawBody: string;
}

export interface WebhookResponse {
  status: number;
  body: unknown;
}

export type Verification<Event> =
  /** Authenticated: signed by the platform, at `signedAtMs` by the time the signature covers. */
  | {
      kind: "event";
      event: Event;
      signedAtMs: number;
      /** Ids a redelivery or replay of this event would carry again (dedupe keys). */
      ids: string[];
    }
  /** A setup handshake the platform answers without an event (Feishu's url_verification challenge). */
  | { kind: "handshake"; response: WebhookResponse }
  | WebhookRejection;

/** Why a request was refused. `reason` is logged and answered: it must never contain a secret. */
export interface WebhookRejection {
  kind: "rejected";
  status: 400 | 401;
  reason: string;
}

export interface WebhookVerifier<Event> {
  verify(request: WebhookRequest): Verification<Event>;
}

export const rejected = (status: 400 | 401, reason: string): WebhookRejection => ({
  kind: "rejected",
  status,
  reason,
});

/** A header's value, or undefined when it is absent or repeated (a repeated signature header is not ours). */
export function singleHeader(request: WebhookRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}
