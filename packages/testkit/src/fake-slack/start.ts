import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sendJson } from "../shared/http-server.ts";
import { waitFor } from "../shared/wait-for.ts";
import { FaultQueue } from "./faults.ts";
import { formRequest, jsonRequest, postSigned } from "./http-driver.ts";
import { IdSource } from "./ids.ts";
import {
  blockActions,
  eventCallback,
  type MessageInput,
  type PressInput,
  type SlashInput,
  slashCommand,
} from "./payloads.ts";
import { SocketModeServer } from "./socket-mode.ts";
import { dmOf, type WorkspaceState } from "./state.ts";
import type { FakeSlack, FakeSlackOptions } from "./types-fake.ts";
import { handleApiCall, METHODS } from "./web-api.ts";

// A fake Slack workspace with one app, which the real @slack/web-api and @slack/socket-mode talk to
// through SLACK_API_URL: the Web API, Socket Mode with acknowledgements and redelivery, signed HTTP
// posts, files both ways, recorded calls and scripted failures.

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const ids = new IdSource();
  const secret = (prefix: string) => `${prefix}-${randomBytes(12).toString("hex")}`;
  const state: WorkspaceState = {
    ids,
    botToken: `xoxb-1000000001-2000000002-${randomBytes(12).toString("hex")}`,
    appToken: `xapp-1-AFAKEAPP-3000000003-${randomBytes(16).toString("hex")}`,
    teamId: "T0FAKE001",
    botUserId: "U0BOT0001",
    botId: "B0BOT0001",
    users: new Map(),
    dms: new Map(),
    channels: new Set(),
    messages: [],
    userFiles: new Map(),
    uploads: new Map(),
    ephemerals: [],
    calls: [],
  };
  const signingSecret = options.signingSecret ?? secret("signing");
  const faults = new FaultQueue();
  const socket = new SocketModeServer(ids, {
    ackTimeoutMs: options.ackTimeoutMs ?? 3_000,
    maxRetries: options.maxRetries ?? 3,
  });
  let baseUrl = "";
  const methods = {
    ...METHODS,
    "apps.connections.open": () => ({ url: socket.ticket(baseUrl) }),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const body = await readBody(req);
    const api = /^\/api\/([\w.]+)$/.exec(path);
    if (api?.[1] && req.method === "POST")
      return handleApiCall(api[1], req, res, body.toString("utf8"), { state, faults, baseUrl, methods });
    const upload = /^\/upload\/(F\w+)$/.exec(path);
    if (upload?.[1] && req.method === "POST") {
      const file = state.uploads.get(upload[1]);
      if (!file) return sendJson(res, 404, { ok: false });
      file.data = body;
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end(`OK - ${body.length}`);
    }
    const download = /^\/files-pri\/(F\w+)\/[^/]+$/.exec(path);
    if (download?.[1] && req.method === "GET") {
      const file = state.userFiles.get(download[1]);
      if (req.headers.authorization !== `Bearer ${state.botToken}`) return sendJson(res, 403, { ok: false });
      if (!file) return sendJson(res, 404, { ok: false });
      res.writeHead(200, { "content-type": file.info.mimetype, "content-length": String(file.data.length) });
      return res.end(file.data);
    }
    sendJson(res, 404, { ok: false, error: "not_found" });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: false, error: String(error) }));
    });
  });
  server.on("upgrade", (req, sock, head) => socket.upgrade(req, sock, head));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const messageInput = (input: Omit<MessageInput, "channel"> & { channel?: string }): MessageInput => ({
    ...input,
    channel: input.channel ?? dmOf(state, input.user),
  });
  const botMessages = (channel: string) =>
    state.messages.filter((m) => m.channel === channel && m.from === "bot");

  return {
    url: baseUrl,
    apiUrl: `${baseUrl}/api/`,
    botToken: state.botToken,
    appToken: state.appToken,
    signingSecret,
    teamId: state.teamId,
    botUserId: state.botUserId,

    user: (input = {}) => {
      const id = input.id ?? ids.next("U");
      const user = { id, name: input.name ?? `user-${id.toLowerCase()}` };
      state.users.set(id, user);
      return user;
    },
    dm: (user) => dmOf(state, user.id),
    channel: () => {
      const id = ids.next("C");
      state.channels.add(id);
      return id;
    },
    shareFile: (input) => {
      const id = ids.next("F");
      const name = input.name;
      const url = `${baseUrl}/files-pri/${id}/${encodeURIComponent(name)}`;
      const info = {
        id,
        name,
        mimetype: input.mimetype ?? "application/octet-stream",
        size: input.data.length,
        url_private_download: url,
        url_private: url,
      };
      state.userFiles.set(id, { info, data: input.data });
      return info;
    },

    sendMessage: (input) => {
      const message = messageInput(input);
      const built = eventCallback(ids, state.teamId, state.botUserId, message);
      state.messages.push({
        ts: built.ts,
        channel: message.channel,
        ...(message.threadTs ? { threadTs: message.threadTs } : {}),
        from: message.user,
        text: message.text,
        edits: 0,
      });
      const envelope = socket.send("events_api", built.body, built.eventId);
      return { ...built, channel: message.channel, envelopeId: envelope.envelopeId };
    },
    sendSlashCommand: (input: SlashInput) => {
      const payload = slashCommand(ids, state.teamId, input);
      return { payload, envelopeId: socket.send("slash_commands", payload).envelopeId };
    },
    pressButton: (input: PressInput) => {
      const payload = blockActions(ids, state.teamId, input);
      return { payload, envelopeId: socket.send("interactive", payload).envelopeId };
    },

    http: {
      eventRequest: (input, sign) => {
        const message = messageInput(input);
        const built = eventCallback(ids, state.teamId, state.botUserId, message);
        return { ...built, channel: message.channel, request: jsonRequest(signingSecret, built.body, sign) };
      },
      slashRequest: (input, sign) => formRequest(signingSecret, slashCommand(ids, state.teamId, input), sign),
      pressRequest: (input, sign) =>
        formRequest(signingSecret, { payload: JSON.stringify(blockActions(ids, state.teamId, input)) }, sign),
      jsonRequest: (body, sign) => jsonRequest(signingSecret, body, sign),
      post: postSigned,
    },

    socketConnections: () => socket.open(),
    socketConnectionsOpened: () => socket.connectionsOpened,
    waitForSocket: (timeoutMs = 10_000) =>
      waitFor(() => socket.open() > 0, {
        timeoutMs,
        intervalMs: 5,
        message: "a Socket Mode connection",
      }).then(() => {}),
    disconnectSockets: () => socket.disconnectAll(),
    redeliver: (envelopeId) => socket.redeliver(envelopeId),
    envelopes: () => [...socket.envelopes],
    isAcked: (envelopeId) =>
      socket.envelopes.some((e) => e.envelopeId === envelopeId && e.ackedAt !== undefined),
    waitForAck: async (envelopeId, timeoutMs = 10_000) => {
      await waitFor(
        () => socket.envelopes.some((e) => e.envelopeId === envelopeId && e.ackedAt !== undefined),
        { timeoutMs, intervalMs: 5, message: `envelope ${envelopeId} to be acknowledged` },
      );
    },

    calls: () => [...state.calls],
    callsOf: (method) => state.calls.filter((call) => call.method === method),
    waitForCall: (method, predicate = () => true, timeoutMs = 10_000) =>
      waitFor(() => state.calls.find((call) => call.method === method && predicate(call)), {
        timeoutMs,
        intervalMs: 5,
        message: `a ${method} call`,
      }),
    messages: (channel) => state.messages.filter((m) => m.channel === channel),
    botMessages,
    waitForBot: (channel, pattern, timeoutMs = 10_000) =>
      waitFor(() => botMessages(channel).find((m) => pattern.test(m.text)), {
        timeoutMs,
        intervalMs: 5,
        message: `a bot message matching ${pattern} in ${channel} (so far: ${JSON.stringify(botMessages(channel).map((m) => m.text))})`,
      }),
    uploads: () => [...state.uploads.values()].filter((file) => file.data.length > 0),
    ephemerals: () => [...state.ephemerals],

    failNext: (method, fault) => faults.add(method, fault),
    close: async () => {
      socket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
