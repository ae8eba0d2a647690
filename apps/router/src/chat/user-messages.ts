import type { TaskCompleteFrame, WireError } from "@phonework/protocol";
import { formatAgo, formatDuration } from "@phonework/runtime";
import type { NodeInfo } from "../registry/node-info.ts";

// Every sentence a user reads from the router is written here, once.

export const nodeDisconnectedText = (node: NodeInfo) => `⚠️ Node "${node.nodeId}" disconnected.`;
export const nodeReconnectedText = (node: NodeInfo) => `✅ Node "${node.nodeId}" reconnected.`;

/** Said once, to its owner, when a node just paired registers: the pairing worked. */
export const nodePairedText = (node: NodeInfo) =>
  `🎉 ${node.nodeId} is paired and online: it works in ${node.workingDir || "its working folder"}. Write here to use it; /help lists what it can do.`;

/** "⚠️ work-server is offline (last seen 5m ago)." — said instead of waiting on a node that is not there. */
export function nodeOfflineText(node: NodeInfo | string, now: number): string {
  if (typeof node === "string") return `⚠️ ${node} is offline. Use /nodes to see your nodes.`;
  return `⚠️ ${node.nodeId} is offline (last seen ${formatAgo(now - node.lastSeen)}). Use /nodes to see your nodes, /node <name> to switch.`;
}

export const resultModeText = (mode: "replace" | "send", changed: boolean) =>
  `${changed ? "✅ Results" : "Results"} in this chat: ${mode === "replace" ? "replace the progress message" : "sent as a new message after the progress message"} (/result replace|send).`;

export const activeNodeSetText = (node: NodeInfo) => `✅ Active node: ${node.nodeId}.`;

/** A name that is no node of the user's, or that two of them answer to: nothing is sent anywhere. */
export function unknownNodeText(
  name: string,
  nodes: readonly NodeInfo[],
  sameName: readonly NodeInfo[],
): string {
  if (sameName.length > 1)
    return `❓ "${name}" could be ${sameName.map((n) => n.nodeId).join(" or ")}; use the node id. Nothing was sent.`;
  const known = nodes.map((n) => n.nodeId).join(", ") || "none";
  return `❓ No node named "${name}". Your nodes: ${known}. Nothing was sent.`;
}

/**
 * A reply or notice tagged with the node it came from (or the nodes that all gave it), for a user
 * with more than one: "[home-pc] text". Text that opens with a code fence gets the tag on a line
 * of its own, so the block still renders as one.
 */
export function fromNode(nodeIds: string | readonly string[], text: string): string {
  const tag = `[${typeof nodeIds === "string" ? nodeIds : nodeIds.join(", ")}]`;
  return /^\s*(```|~~~)/.test(text) ? `${tag}\n${text}` : `${tag} ${text}`;
}

/**
 * How a PC becomes one of the user's nodes. An admin pairs it (the code makes them its owner);
 * anyone else needs an admin to pair it and share it with them. `isAdmin` undefined: not known.
 */
export function pairingStepsText(userId: string, isAdmin: boolean | undefined): string {
  if (isAdmin)
    return [
      "To pair a PC:",
      "1. Send /pair <name> here (for example /pair home-pc).",
      "2. On that PC run: phonework host --join <the code it answers>",
      "It is announced here once it is online.",
    ].join("\n");
  if (isAdmin === false)
    return [
      "Ask an admin of this router to pair a PC for you. They:",
      "1. send /pair <name> to this bot,",
      "2. run phonework host --join <the code it answers> on that PC,",
      `3. send /share <name> ${userId} (your id).`,
    ].join("\n");
  return [
    "To pair a PC, an admin of this router:",
    "1. sends /pair <name> to this bot (for example /pair home-pc),",
    "2. runs phonework host --join <the code it answers> on that PC,",
    `3. if the PC is for someone else, sends /share <name> <their id> (yours: ${userId}).`,
  ].join("\n");
}

export function noNodesText(known: NodeInfo[], userId: string): string {
  if (known.length === 0) return `No node is serving you yet.\n${pairingStepsText(userId, undefined)}`;
  return `None of your nodes is online (${known.map((n) => n.nodeId).join(", ")}). Use /nodes to see when they were last seen.`;
}

export const pickNodeText = (online: NodeInfo[]) =>
  `You have several nodes online: ${online.map((n) => n.nodeId).join(", ")}. Choose one with /node <name>, or start a message with @<name>.`;

export const onlineNowText = (online: NodeInfo[]) =>
  `Online now: ${online.map((n) => n.nodeId).join(", ")} — start a message with @<name>, or switch with /node <name>.`;

/** The routing LLM's question, with the ways to answer it. */
export const routingQuestionText = (question: string) =>
  `🤔 ${question}\n(Reply with @<node> <message>, or switch with /node <name>.)`;

export function rpcErrorText(error: WireError, nodeId: string): string {
  switch (error.code) {
    case "NODE_OFFLINE":
      return `⚠️ Node "${nodeId}" went offline before answering. Your message may not have been completed; send it again once the node is back.`;
    case "TIMEOUT":
      return `⏱️ Node "${nodeId}" did not answer in time (${error.message}). It may still be working.`;
    case "QUEUE_FULL":
      // The node says which queue and its limit ("queue full (max 10)"); the router's own says less.
      return `🚦 Node "${nodeId}" is busy: ${error.message || "queue full"}. Try again in a moment.`;
    case "CANCELLED":
      return "⏹️ Cancelled.";
    default:
      return `❌ Node "${nodeId}" could not handle that (${error.code}): ${error.message}`;
  }
}

/** An answer that arrived after its request was given up on (the router restarted, or timed out). */
export const lateReplyText = (text: string) => `↩️ Late answer to an earlier message:\n\n${text}`;

export const unknownUserText = (userId: string) =>
  `🔒 This bot is private. Ask its owner to add your id to ALLOWED_USERS: ${userId}`;

export const unsupportedMessageText = (type: string) =>
  `I cannot read this kind of message (${type}). Please send it as text.`;

/** A group message the bot was not addressed in: nothing is said (the group is not spammed). */
export const buttonExpiredText = "This button has expired.";
export const buttonNotYoursText = "This button is not for you.";
export const buttonAnsweredText = "Already answered.";
export const buttonPressedText = (label: string) => `✓ ${label}`;

export const attachmentSkippedText = (name: string, reason: string) =>
  `[attachment ${name} not received: ${reason}]`;

const platformName = (type: string) =>
  ({ feishu: "Feishu", telegram: "Telegram", terminal: "The terminal", discord: "Discord" })[type] ?? type;

export const deliveryFailedText = (platform: string, code: number | string | undefined) =>
  `⚠️ A reply could not be delivered to this chat (${platformName(platform)} error ${code ?? "unknown"}). Please try again.`;

export function fileTooLargeText(name: string, bytes: number, cap: number, platform: string): string {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `📎 ${name} is ${mb(bytes)}; ${platformName(platform)} accepts files up to ${mb(cap)}, so it was not sent.`;
}

const OUTPUT_LIMIT = 800;

export function taskCompleteText(frame: TaskCompleteFrame): string {
  const icon = frame.ok ? "✅" : "❌";
  const verb = frame.ok ? "done" : "failed";
  const output =
    frame.output.length > OUTPUT_LIMIT ? `${frame.output.slice(0, OUTPUT_LIMIT)}… [truncated]` : frame.output;
  const head = `${icon} Task #${frame.task_id} ${verb} (${formatDuration(frame.elapsed_ms)})\n${frame.description}`;
  return output.trim() ? `${head}\n\n${output}` : head;
}

// Voice notes (voice/): what the user reads when one is heard, refused or kept for /retry.
export const RETRY_COMMAND = "/retry";
export const voiceHeardText = (transcript: string) => `🎤 ${transcript}`;
export const voiceNotConfiguredText =
  "🎤 Voice notes need speech-to-text on the router: set STT_BASE_URL (an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1), with STT_API_KEY and STT_MODEL as it needs, and restart it. Your voice note is kept: send /retry then.";
export const voiceTooLongText = (seconds: number, max: number) =>
  `🎤 That voice note is ${Math.ceil(seconds)} s long; the limit is ${max} s (STT_MAX_SECONDS). Nothing was sent: please record a shorter one.`;
export const voiceTooBigText = (bytes: number, max: number) =>
  `🎤 That voice note is ${(bytes / 1024 / 1024).toFixed(1)} MB; the limit is ${(max / 1024 / 1024).toFixed(1)} MB (STT_MAX_BYTES). Nothing was sent: please record a shorter one.`;
export const voiceUnavailableText = (why: string) =>
  `🎤 Your voice note could not be transcribed: the speech-to-text service ${why}. It is kept: send /retry to try again.`;
export const voiceDownloadFailedText =
  "🎤 Your voice note could not be fetched from the chat. It is kept: send /retry to try again.";
export const voiceFormatText = (label: string) =>
  `🎤 The speech-to-text service does not take ${label} audio, and the router has no ffmpeg to convert it. Please send it as MP3, M4A or WAV (or install ffmpeg on the router).`;
export const voiceEmptyText = "🎤 No words were heard in that voice note.";
export const voiceNothingToRetryText = "🎤 No voice note of yours is waiting to be transcribed again.";
