import type { AccessPolicy } from "../access/adapter-access.ts";
import { splitQualified } from "../ids/qualified-id.ts";
import type { PlatformAdapter } from "../platforms/platform-adapter.ts";

// Who may use the console: whoever may use the chat their id belongs to, by that chat's own rules
// (its admins, its dm list). Asked when a link is redeemed, when a page connects and for every
// message, so a user taken off ALLOWED_USERS loses the console with the chat.

export function consoleAccess(
  chats: readonly PlatformAdapter[],
  accessFor: (adapter: PlatformAdapter) => AccessPolicy,
): AccessPolicy {
  const own = new Map(
    chats.filter((adapter) => !adapter.companion).map((adapter) => [adapter.name, adapter]),
  );
  return {
    mayUse(userId, channelType) {
      const adapter = own.get(splitQualified(userId, own.keys())?.adapter ?? "");
      return adapter !== undefined && accessFor(adapter).mayUse(userId, channelType);
    },
  };
}
