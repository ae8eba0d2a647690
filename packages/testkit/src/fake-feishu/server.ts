import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { sendJson } from "../shared/http-server.ts";
import { describeMultipart, multipartBoundary, parseMultipart } from "../shared/multipart.ts";
import { TenantTokens } from "./auth.ts";
import { buttonsOf, CardCallbacks, decodeAckData } from "./card-callbacks.ts";
import { cardActionEvent, FAKE_TENANT_KEY, withAppId } from "./events.ts";
import { FaultQueue } from "./faults.ts";
import { hex, newAppId, newOpenId } from "./ids.ts";
import { FAST_RECONNECT, LongConnection } from "./long-connection.ts";
import { MessageStore } from "./messages.ts";
import { answer, errorAnswer, type OpenApiState, type ParsedRequest } from "./open-api.ts";
import { ResourceStore } from "./resources.ts";
import type { CardPressInput, FakeFeishu, FakeFeishuOptions, FeishuCall } from "./types.ts";
import type { Upload } from "./uploads.ts";
import { buildWebhookRequest, postWebhook } from "./webhook-driver.ts";

// A fake Feishu (Lark) Open Platform that the real @larksuiteoapi/node-sdk talks to unmodified: token,
// im/v1 messages and uploads over HTTP, the long connection over WebSocket on the same port, and a
// driver that posts webhooks to the app like Feishu's event push. Every HTTP call is recorded.
// Not built on listenOnLoopback: uploads need the raw body bytes, not a UTF-8 string.

export async function startFakeFeishu(options: FakeFeishuOptions = {}): Promise<FakeFeishu> {
  const appId = newAppId();
  const appSecret = hex(16);
  const calls: FeishuCall[] = [];
  const faults = new FaultQueue();
  const uploads: Upload[] = [];
  const longConnection = new LongConnection(
    { appId, appSecret },
    { ...FAST_RECONNECT, ...options.wsClientConfig },
  );
  const state: OpenApiState = {
    baseUrl: "",
    tokens: new TenantTokens(appId, appSecret, options.tokenTtlS ?? 7200),
    messages: new MessageStore(appId, FAKE_TENANT_KEY),
    uploads,
    resources: new ResourceStore(),
    longConnection,
    botOpenId: newOpenId(),
  };
  const callbacks = new CardCallbacks(state.messages);

  /** The callback a press of the button labelled `label` on that card sends (it must be there). */
  const buttonPressEvent = (input: CardPressInput): object => {
    const card = state.messages.get(input.messageId);
    const button = buttonsOf(card?.content).find((b) => b.label === input.label);
    if (!card || !button)
      throw new Error(`fake-feishu: no button "${input.label}" on message ${input.messageId}`);
    return withAppId(
      cardActionEvent({
        openId: input.openId,
        messageId: input.messageId,
        chatId: card.chat_id,
        value: button.value,
        ...(input.eventId ? { eventId: input.eventId } : {}),
        ...(input.token ? { token: input.token } : {}),
      }),
      appId,
    );
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = parseRequest(req, Buffer.concat(chunks));
      calls.push(recordOf(request));
      const fault = faults.take(request.path);
      const respond = () => {
        if (res.destroyed) return;
        const reply = fault?.error ? errorAnswer(fault.error) : answer(request, state);
        if (Buffer.isBuffer(reply.body)) {
          res.writeHead(reply.status, reply.headers);
          res.end(reply.body);
        } else sendJson(res, reply.status, reply.body, reply.headers);
      };
      if (fault?.delayMs) setTimeout(respond, fault.delayMs);
      else respond();
    });
  });
  server.on("upgrade", (req, socket, head) => longConnection.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: state.baseUrl,
    appId,
    appSecret,
    botOpenId: state.botOpenId,
    tenantKey: FAKE_TENANT_KEY,
    calls,
    sent: () => [...state.messages.sent],
    patches: () => [...state.messages.patches],
    updates: () => [...state.messages.updates],
    message: (messageId) => state.messages.get(messageId),
    recall: (messageId) => state.messages.recall(messageId),
    uploads: () => [...uploads],
    tokenRequests: () => state.tokens.requests,
    issuedTokens: () => state.tokens.issued(),
    wsConnectionCount: () => longConnection.accepted,
    waitForWsConnection: (count) => longConnection.waitForConnection(count),
    pushEvent: (event, pushOptions) => {
      const complete = withAppId(event, appId);
      state.messages.observeEvent(complete);
      return longConnection.push(complete, pushOptions);
    },
    wsAcks: () => [...longConnection.acks],
    dropWs: () => longConnection.drop(),
    postWebhook: (url, body, webhookOptions) => {
      const complete = withAppId(body, appId);
      state.messages.observeEvent(complete);
      return postWebhook(url, complete, webhookOptions);
    },
    webhookRequest: (body, webhookOptions) => {
      const complete = withAppId(body, appId);
      state.messages.observeEvent(complete);
      return buildWebhookRequest(complete, webhookOptions);
    },
    failNext: (pattern, fault) => faults.add(pattern, fault),
    rememberEvent: (event) => state.messages.observeEvent(event),
    userImage: (data, contentType = "image/png") => state.resources.add({ kind: "image", data, contentType }),
    userFile: (data, fileOptions = {}) =>
      state.resources.add({
        kind: "file",
        data,
        contentType: fileOptions.contentType ?? "application/octet-stream",
        ...(fileOptions.name ? { fileName: fileOptions.name } : {}),
      }),
    downloads: () => [...state.resources.downloads],
    cardButtons: (messageId) => buttonsOf(state.messages.get(messageId)?.content),
    cardVersions: (messageId) =>
      state.messages.cardVersions.filter((v) => messageId === undefined || v.message_id === messageId),
    cardAnswers: () => [...callbacks.answers],
    buttonPressEvent,
    pressButton: async (input) => {
      const ack = await longConnection.push(buttonPressEvent(input));
      return callbacks.apply(input.messageId, decodeAckData(ack.data));
    },
    postButtonPress: async (url, input, webhookOptions) => {
      const response = await postWebhook(url, buttonPressEvent(input), webhookOptions);
      return {
        ...response,
        ...(response.status === 200 ? { answer: callbacks.apply(input.messageId, response.body) } : {}),
      };
    },
    close: async () => {
      longConnection.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseRequest(req: IncomingMessage, raw: Buffer): ParsedRequest {
  const url = new URL(req.url ?? "/", "http://fake");
  const boundary = multipartBoundary(req.headers["content-type"]);
  const parts = boundary ? parseMultipart(raw, boundary) : undefined;
  let json: unknown;
  if (!parts && raw.length) {
    const text = raw.toString("utf8");
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
  }
  return {
    method: req.method ?? "GET",
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
    json,
    parts,
  };
}

function recordOf(request: ParsedRequest): FeishuCall {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return {
    method: request.method,
    path: request.path,
    query: request.query,
    headers,
    body: request.parts ? describeMultipart(request.parts) : request.json,
  };
}
