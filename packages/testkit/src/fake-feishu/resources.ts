import { FeishuCode, type FeishuError, feishuError, invalidParam } from "./errors.ts";
import { hex } from "./ids.ts";
import type { MessageStore } from "./messages.ts";

// Files users send: a test registers the bytes (userImage / userFile) and puts the key it gets in a
// message event; GET /open-apis/im/v1/messages/:message_id/resources/:file_key?type=image|file then
// serves them, as Feishu does: only with a live tenant token (checked by the router), only for a
// key that is in that message, images only as type=image, files (audio, video) only as type=file.
// An unknown key is a 404. The bytes go out as they are, with their length and type.

export interface UserResource {
  kind: "image" | "file";
  data: Buffer;
  contentType: string;
  fileName?: string;
}

export class ResourceStore {
  private readonly byKey = new Map<string, UserResource>();
  /** Every download asked for, answered or not. */
  readonly downloads: Array<{ messageId: string; key: string; type: string; status: number }> = [];

  add(resource: UserResource): string {
    const key =
      resource.kind === "image" ? `img_v3_02${hex(4)}_${hex(16)}g` : `file_v3_00${hex(4)}_${hex(16)}g`;
    this.byKey.set(key, resource);
    return key;
  }

  /** The resource to serve, or Feishu's error. The token is checked before (open-api.ts). */
  download(
    messages: MessageStore,
    messageId: string,
    key: string,
    type: string | undefined,
  ): { resource: UserResource } | { error: FeishuError } {
    const answer = this.find(messages, messageId, key, type);
    const status = answer.error ? answer.error.status : 200;
    this.downloads.push({ messageId, key, type: type ?? "", status });
    return answer;
  }

  private find(
    messages: MessageStore,
    messageId: string,
    key: string,
    type: string | undefined,
  ): { resource: UserResource; error?: undefined } | { error: FeishuError } {
    if (type !== "image" && type !== "file") return { error: invalidParam("type must be image or file") };
    const resource = this.byKey.get(key);
    if (!resource)
      return { error: feishuError(404, FeishuCode.resourceNotFound, "The resource does not exist.") };
    const message = messages.get(messageId);
    if (!message) return { error: invalidParam(`message ${messageId} not found`) };
    if (!JSON.stringify(message.content).includes(key))
      return {
        error: feishuError(400, FeishuCode.resourceNotInMessage, "The file_key is not in this message."),
      };
    if (resource.kind !== type)
      return { error: invalidParam(`the resource is a ${resource.kind}, not a ${type}`) };
    return { resource };
  }
}

/** The headers a download goes out with. */
export function resourceHeaders(resource: UserResource): Record<string, string> {
  return {
    "content-type": resource.contentType,
    "content-length": String(resource.data.length),
    ...(resource.fileName
      ? { "content-disposition": `attachment; filename="${encodeURIComponent(resource.fileName)}"` }
      : {}),
  };
}
