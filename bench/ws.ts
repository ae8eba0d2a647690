import { createRequire } from "node:module";
import type WsModule from "../apps/host/node_modules/@types/ws/index.d.ts";

// The `ws` package the host app uses. The repo root has no dependencies of its own, so it is
// loaded from apps/host (where pnpm installs it) rather than added to the root package.json.
const ws = createRequire(new URL("../apps/host/package.json", import.meta.url))("ws") as typeof WsModule;

export const { WebSocket, WebSocketServer } = ws;
export type WebSocket = WsModule;
export type WebSocketServer = WsModule.Server;
export type RawData = WsModule.RawData;
