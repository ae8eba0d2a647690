import { type ChatOwner, ownerOf } from "../contracts/chat-owner.ts";
import type { PlanRow } from "./plan-ledger.ts";

// Whose plan it is: the chat its progress messages and report go to, and whose workers run it.

export interface PlanOwner extends ChatOwner {
  /** Only this chat's directory is visible to its commands, not the user's other chats (remote work). */
  isolated?: boolean;
  /** The plan the work is for: its model calls count against PLAN_TOKEN_LIMIT. */
  planId?: string;
}

export const planOwner = (plan: PlanRow): PlanOwner => ownerOf(plan);
