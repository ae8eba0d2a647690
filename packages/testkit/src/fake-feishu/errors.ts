import type { ServerResponse } from "node:http";
import { sendJson } from "../shared/http-server.ts";
import { newLogId } from "./ids.ts";

// Feishu's error envelope and the codes the fake answers with. Open API errors come back as an HTTP
// 4xx with `{ code, msg, error: { log_id } }`; the SDK turns any non-2xx into a thrown AxiosError.

export const FeishuCode = {
  ok: 0,
  /** tenant_access_token/internal: unknown app id. */
  invalidAppId: 10003,
  /** tenant_access_token/internal: wrong app secret. */
  invalidAppSecret: 10014,
  missingAccessToken: 99991661,
  invalidAccessToken: 99991663,
  rateLimited: 99991400,
  fieldValidation: 99992402,
  /** im: generic invalid parameter (bad content, unknown message, wrong message type). */
  invalidMessageParam: 230001,
  /** im: the message was recalled (reply, update, patch of a recalled message). */
  messageRecalled: 230011,
  /** im: message.update beyond the 20-edit limit. */
  editLimitReached: 230072,
  /** im message resource: the file_key is not in the message named (the fake's choice of code). */
  resourceNotInMessage: 234003,
  /** im message resource: no such file (answered with HTTP 404). */
  resourceNotFound: 234008,
  /** im: a card Feishu cannot take (its inner ErrCode in `ext`). */
  cardContentFailed: 230099,
  /** long connection endpoint: credentials rejected (the SDK's ErrorCode.auth_failed). */
  wsAuthFailed: 514,
} as const;

export interface FeishuError {
  status: number;
  code: number;
  msg: string;
  headers?: Record<string, string>;
}

/** What an Open API route answers: its `data`, or a Feishu error. */
export type RouteResult = { data: unknown } | { error: FeishuError };

export const feishuError = (status: number, code: number, msg: string): FeishuError => ({
  status,
  code,
  msg,
});

export const invalidParam = (detail: string): FeishuError =>
  feishuError(
    400,
    FeishuCode.invalidMessageParam,
    `Your request contains an invalid request parameter, ext=${detail}`,
  );

export function sendFeishuError(res: ServerResponse, error: FeishuError): void {
  sendJson(
    res,
    error.status,
    { code: error.code, msg: error.msg, error: { log_id: newLogId() } },
    error.headers,
  );
}

export function sendFeishuData(res: ServerResponse, data: unknown): void {
  sendJson(res, 200, { code: 0, msg: "success", data });
}

/** The default Feishu code for a scripted fault status when the test does not give one. */
export function defaultCodeFor(status: number): number {
  if (status === 429) return FeishuCode.rateLimited;
  return status;
}

export function defaultMsgFor(status: number): string {
  if (status === 429) return "request trigger frequency limit";
  if (status >= 500) return "internal error";
  return `fake-feishu fault ${status}`;
}
