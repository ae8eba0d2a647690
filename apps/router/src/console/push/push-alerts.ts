import type { Logger } from "@phonework/runtime";
import type { PhoneAlert, PhoneAlerts } from "../../contracts/phone-alerts.ts";
import type { PushPayload } from "./push-payload.ts";

// The console's side of phone alerts: nothing is pushed while one of the user's console pages is
// open and visible (they are watching; the page shows it); otherwise each alert goes to the user's
// subscriptions covering its node, as a short payload whose tap opens the console.

export interface PushAlertsDeps {
  sender: { sendToUser(userId: string, payload: PushPayload, nodeId?: string): Promise<number> };
  /** Whether a page of the user's is open and visible now. */
  watching: (userId: string) => boolean;
  logger: Logger;
}

export const CONSOLE_URL = "/console/";

export function pushPayloadOf(alert: PhoneAlert): PushPayload {
  return {
    title: alert.title,
    body: alert.body,
    ...(alert.tag ? { tag: alert.tag } : {}),
    url: CONSOLE_URL,
    node: alert.nodeId,
    ...(alert.actions?.length
      ? { actions: alert.actions.map((action) => ({ action: action.command, title: action.title })) }
      : {}),
  };
}

export class PushAlerts implements PhoneAlerts {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly deps: PushAlertsDeps) {}

  alert(alert: PhoneAlert): void {
    const { userId, nodeId, kind } = alert;
    if (this.deps.watching(userId)) {
      this.deps.logger.debug({ userId, nodeId, kind }, "not pushed: a page of the user's is watching");
      return;
    }
    const sending = this.deps.sender
      .sendToUser(userId, pushPayloadOf(alert), nodeId)
      .then((sent) => this.deps.logger.debug({ userId, nodeId, kind, sent }, "phone alert pushed"))
      .catch((error: unknown) =>
        this.deps.logger.warn({ userId, kind, err: (error as Error)?.message }, "phone alert not pushed"),
      );
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  /** Resolves once every push started so far has settled (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
