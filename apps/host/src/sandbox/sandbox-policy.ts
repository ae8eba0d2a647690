import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import { type Channel, channelOf, type WorkspaceLayout } from "../workspace/workspace-layout.ts";
import { baseMounts, type Mount, Rank } from "./mount-plan.ts";

// The policy, path by path, for one command: read-only everywhere; WORKING_DIR, a scratch
// directory and SANDBOX_WRITABLE writable; DATA_DIR, credentials and SANDBOX_HIDE hidden; the
// workspace visible read-only inside DATA_DIR, with only the chats the user may see. Paths are
// looked at when the command starts, so a directory created since is covered too.

export interface SandboxSettings {
  workingDir: string;
  dataDir: string;
  workspace: WorkspaceLayout;
  home: string;
  /** XDG_RUNTIME_DIR: the user's D-Bus and agent sockets (`systemd-run --user` would run outside). */
  runtimeDir?: string | undefined;
  writable: readonly string[];
  hide: readonly string[];
  /** The chats a user has written in (ChannelAccess.channelsOf). */
  channelsOf: (userId: string) => Channel[];
}

/** Who a command runs for: decides which chats' directories it sees. */
export interface CommandScope extends ChatOwner {
  /** Writable for this command instead of the chat's scratch/ (a worker's own scratch directory). */
  scratchDir?: string | undefined;
  /** Only this chat's directory is shown, not the user's other chats (a subtask from another node). */
  isolated?: boolean | undefined;
}

/** Credentials and sockets every command is denied, under the home directory or absolute. */
const HIDDEN_IN_HOME = [".ssh", ".aws", join(".config", "gh")];
// The Docker socket is root on the machine for anyone who can connect to it.
const HIDDEN_SOCKETS = ["/run/docker.sock", "/var/run/docker.sock"];

/** The real path, or undefined when there is nothing there (nothing to bind or to hide). */
function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

const bind = (path: string, how: "ro" | "rw", rank: number): Mount[] => {
  const found = real(path);
  return found ? [{ path: found, how, rank }] : [];
};

const hide = (path: string, rank: number): Mount[] => {
  const found = real(path);
  if (!found) return [];
  return [{ path: found, how: statSync(found).isDirectory() ? "empty-dir" : "empty-file", rank }];
};

export function policyMounts(settings: SandboxSettings, scope: CommandScope): Mount[] {
  const { workspace } = settings;
  const channel = channelOf(scope.platform, scope.chatId);
  const visible = scope.isolated ? [channel] : [channel, ...settings.channelsOf(scope.userId)];
  let scratch = scope.scratchDir;
  if (!scratch) {
    scratch = workspace.channelScratch(channel);
    ensurePrivateDir(scratch); // bound writable, so it must exist
  }
  return [
    ...baseMounts(),
    ...hide(settings.dataDir, Rank.builtInHide),
    ...bind(workspace.root, "ro", Rank.reexpose),
    // Every chat's directory hidden, then the user's own shown again: a chat created while the
    // command runs stays hidden, and the names of the others are not even listed.
    ...hide(workspace.channelsDir, Rank.builtInHide),
    ...visible.flatMap((c) => bind(workspace.channelDir(c), "ro", Rank.reexpose)),
    ...HIDDEN_IN_HOME.flatMap((path) => hide(join(settings.home, path), Rank.builtInHide)),
    ...(settings.runtimeDir ? hide(settings.runtimeDir, Rank.builtInHide) : []),
    ...HIDDEN_SOCKETS.flatMap((path) => hide(path, Rank.builtInHide)),
    ...bind(settings.workingDir, "rw", Rank.writable),
    ...bind(scratch, "rw", Rank.writable),
    ...settings.writable.flatMap((path) => bind(path, "rw", Rank.writable)),
    ...settings.hide.flatMap((path) => hide(path, Rank.userHide)),
  ];
}
