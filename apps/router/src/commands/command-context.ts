import type { Clock } from "@phonework/runtime";
import type { Admins } from "../access/admins.ts";
import type { ConsoleCommand } from "../console/console-command.ts";
import type { QualifyResult } from "../ids/qualified-id.ts";
import type { PairingService } from "../pairing/pairing-service.ts";
import type { NodeInfo } from "../registry/node-info.ts";
import type { NodeDirectory } from "../registry/node-registry.ts";
import type { ThreadSupport } from "../users/details-mode.ts";
import type { UserStateStore } from "../users/user-state-store.ts";

// What every router command is given: who asks, from which chat, and the parts it reads or changes.

export interface RouterCommandDeps {
  registry: NodeDirectory & { list(): NodeInfo[] };
  userState: UserStateStore;
  clock: Clock;
  admins: Admins;
  pairing: PairingService;
  /** A user id typed in a command (/share), qualified as stored (default: taken as typed). */
  qualifyUser?: (id: string) => QualifyResult;
  /** Voice out (/voice): whether a speech endpoint is configured; absent: none. */
  voiceOut?: { readonly configured: boolean };
  /** The web console's /console; absent when the console is off. */
  console?: Pick<ConsoleCommand, "run">;
}

/** Who is asking, and from which chat: admin commands, owner columns and chat settings depend on it. */
export interface Asker {
  userId: string;
  platform: string;
  chatId: string;
  /** Where it was asked; a group's members all see the answer (default: private). */
  chatType?: "private" | "group";
  /** Where the chat's platform can put a turn's details (its capabilities; default: nowhere). */
  threads?: ThreadSupport;
}
