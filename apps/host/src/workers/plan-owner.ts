import type { PlanRow } from "./plan-ledger.ts";

// Whose plan it is: the chat its progress messages and report go to, and whose workers run it.

export interface PlanOwner {
  userId: string;
  chatId: string;
  platform: string;
  /** Only this chat's directory is visible to its commands, not the user's other chats (remote work). */
  isolated?: boolean;
}

export const planOwner = (plan: PlanRow): PlanOwner => ({
  userId: plan.user_id,
  chatId: plan.chat_id,
  platform: plan.platform,
});
