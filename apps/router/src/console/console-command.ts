import { formatDuration } from "@phonework/runtime";
import type { ChatReply } from "../chat/chat-types.ts";
import type { ConsoleSessions } from "./console-sessions.ts";
import type { LoginLinks } from "./login-links.ts";

// `/console` in chat: a one-time login link to the web console for the asker; `/console
// logout-all` ends every console sign-in of theirs.

/** The router finds the built page when it starts: after building, it must be restarted. */
export const NOT_BUILT_TEXT =
  "The console's page is not built on this router: run `pnpm build` there, then restart the router (it looks for the page when it starts) and send /console again.";

export const CONSOLE_USAGE = "Usage: /console (a login link) · /console logout-all";

export interface ConsoleCommandDeps {
  links: LoginLinks;
  sessions: ConsoleSessions;
  /** Where browsers reach the console (PUBLIC_URL, else the listen address); undefined before listening. */
  baseUrl: () => string | undefined;
  /** Why links would not work from a phone (no PUBLIC_URL on a router listening publicly), if so. */
  addressHint?: string;
  /** Whether the page's scripts are built (`pnpm build`). */
  pageReady: () => boolean;
  linkTtlMs: number;
  /** Told every code minted, so the logger redacts it by value. */
  onSecret?: (code: string) => void;
}

export class ConsoleCommand {
  constructor(private readonly deps: ConsoleCommandDeps) {}

  run(userId: string, arg: string, chatType: "private" | "group"): ChatReply {
    const { deps } = this;
    const action = arg.trim().toLowerCase();
    if (action === "logout-all") {
      const ended = deps.sessions.endAllFor(userId);
      return {
        text:
          ended === 0
            ? "You have no console sign-ins."
            : `🚪 Signed out of the console everywhere (${ended} sign-in${ended === 1 ? "" : "s"}).`,
      };
    }
    if (action) return { text: CONSOLE_USAGE };
    // Whoever sees the link can use it first.
    if (chatType === "group")
      return { text: "Send /console in a private chat with the bot: everyone here would see the link." };
    const base = deps.baseUrl();
    if (!base) return { text: "The console is not reachable yet: the router is still starting. Try again." };
    if (!deps.pageReady())
      return {
        text: NOT_BUILT_TEXT,
      };
    const { code } = deps.links.create(userId);
    deps.onSecret?.(code);
    const url = new URL("/console/login", base);
    url.searchParams.set("code", code);
    return {
      text: [
        `🖥️ Your web console (the link works once, for ${formatDuration(deps.linkTtlMs)}):`,
        url.toString(),
        ...(deps.addressHint ? ["", deps.addressHint] : []),
        "",
        "/console logout-all signs out every browser.",
      ].join("\n"),
    };
  }
}
