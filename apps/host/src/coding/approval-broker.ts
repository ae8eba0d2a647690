import { randomBytes } from "node:crypto";
import type { Button } from "@phonework/protocol";
import { formatDuration } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";

// Approval requests from a coding agent (Codex asking to run a command or change files) go to
// the user's chat; the user answers /approve <id> or /deny <id> (typed, or by the buttons under
// the request). None is left unanswered: after the timeout it is declined and the user is told.

interface Pending {
  owner: ChatOwner;
  what: string;
  askedAt: number;
  resolve: (approved: boolean) => void;
  timer: NodeJS.Timeout;
}

/** A question waiting for its user, as the console lists it. */
export interface PendingApproval {
  id: string;
  what: string;
  askedAt: number;
  expiresAt: number;
  /** The chat it was asked in. */
  chatId: string;
}

export interface ApprovalBrokerDeps {
  /** An unanswered request is declined after this long (APPROVAL_TIMEOUT_S). */
  timeoutMs: number;
  /**
   * Sends the question (and the timeout notice) to the user's chat. With `buttons` it is the
   * question, which the user's phone is alerted to as well.
   */
  notify: (owner: ChatOwner, text: string, buttons?: Button[][]) => void;
  now: () => number;
  /** Told when a user's pending approvals change (asked, answered, timed out, withdrawn). */
  onChange?: (userId: string) => void;
}

export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly deps: ApprovalBrokerDeps) {}

  /** Asks the user; resolves true if approved, false if denied or timed out. */
  request(owner: ChatOwner, what: string, signal?: AbortSignal): Promise<boolean> {
    const id = randomBytes(2).toString("hex");
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        if (this.settle(id, false))
          this.deps.notify(owner, `⌛ Approval ${id} was not answered in time; declined.`);
      }, this.deps.timeoutMs);
      this.pending.set(id, { owner, what, askedAt: this.deps.now(), resolve, timer });
      this.deps.onChange?.(owner.userId);
      signal?.addEventListener("abort", () => this.settle(id, false), { once: true });
      // The text keeps the commands: a platform without buttons shows only the text.
      this.deps.notify(
        owner,
        `🔐 ${what}\nReply /approve ${id} or /deny ${id} (declined automatically in ${formatDuration(this.deps.timeoutMs)}).`,
        [
          [
            { label: "Approve", command: `/approve ${id}` },
            { label: "Deny", command: `/deny ${id}` },
          ],
        ],
      );
    });
  }

  /** Answers a pending request of this user; returns a reply for the chat. */
  answer(userId: string, id: string, approved: boolean): string {
    const entry = this.pending.get(id);
    if (!entry || entry.owner.userId !== userId) return `No pending approval ${id}.`;
    this.settle(id, approved);
    return approved ? `✅ Approved ${id}.` : `🚫 Denied ${id}.`;
  }

  /** The user's questions still waiting, oldest first. */
  pendingFor(userId: string): PendingApproval[] {
    return [...this.pending.entries()]
      .filter(([, entry]) => entry.owner.userId === userId)
      .map(([id, entry]) => ({
        id,
        what: entry.what,
        askedAt: entry.askedAt,
        expiresAt: entry.askedAt + this.deps.timeoutMs,
        chatId: entry.owner.chatId,
      }));
  }

  get size(): number {
    return this.pending.size;
  }

  private settle(id: string, approved: boolean): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(approved);
    this.deps.onChange?.(entry.owner.userId);
    return true;
  }
}
