import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { checkVapid, decryptPush, type VapidClaims } from "./push-crypto.ts";
import type { PushSubscriber } from "./push-subscriber.ts";

// The fake push service: subscriptions are /push/<id> on it; each POST is checked and decrypted
// with that subscriber's keys, then recorded. `gone(id)` makes it answer 410 for that subscription.

// The test certificates (fixtures/tls): this folder may not import the root's tls-fixtures.ts.
const tlsFixture = (name: string) => join(import.meta.dirname, "..", "..", "fixtures", "tls", name);

export interface ReceivedPush {
  id: string;
  payload: string;
  claims: VapidClaims;
  /** The sender's VAPID public key (k=), base64url. */
  k: string;
  ttl: string | undefined;
}

export interface FakePush {
  /** https://127.0.0.1:<port>: the VAPID audience. */
  origin: string;
  /** The test CA the server's certificate is signed by. */
  ca: Buffer;
  /** A new subscription on this service: its endpoint and the browser's keys. */
  subscribe(subscriber: PushSubscriber): { id: string; endpoint: string };
  gone(id: string): void;
  received: ReceivedPush[];
  /** Requests refused, with why (a bad JWT, a body that does not decrypt). */
  refused: string[];
  close(): Promise<void>;
}

export async function startFakePush(): Promise<FakePush> {
  const subscribers = new Map<string, PushSubscriber>();
  const gone = new Set<string>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  let origin = "";
  const server = createServer(
    { cert: readFileSync(tlsFixture("router.pem")), key: readFileSync(tlsFixture("router.key")) },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const id = /^\/push\/([\w-]+)$/.exec(request.url ?? "")?.[1] ?? "";
        const subscriber = subscribers.get(id);
        if (request.method !== "POST" || !subscriber) return response.writeHead(404).end();
        if (gone.has(id)) return response.writeHead(410).end();
        try {
          if (request.headers["content-encoding"] !== "aes128gcm") throw new Error("not aes128gcm");
          const vapid = checkVapid(request.headers.authorization, origin, Math.floor(Date.now() / 1000));
          const payload = decryptPush(Buffer.concat(chunks), subscriber);
          received.push({ id, payload, ...vapid, ttl: request.headers.ttl as string | undefined });
          response.writeHead(201).end();
        } catch (error) {
          refused.push((error as Error).message);
          response.writeHead(400).end((error as Error).message);
        }
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let next = 0;
  return {
    origin,
    ca: readFileSync(tlsFixture("ca.pem")),
    subscribe(subscriber) {
      const id = `sub-${++next}`;
      subscribers.set(id, subscriber);
      return { id, endpoint: `${origin}/push/${id}` };
    },
    gone: (id) => void gone.add(id),
    received,
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
