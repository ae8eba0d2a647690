// A terminal's screen as a chat answer: a code block that nothing on the screen can close, under a
// line saying what runs and whether it still does.

import { codeBlock, codeSpan } from "../contracts/code-block.ts";
import type { TerminalEnd } from "./terminal-session.ts";

export function statusText(end: TerminalEnd | undefined, idleMinutes: number): string {
  if (!end) return "running";
  switch (end.reason) {
    case "exited":
      return end.code === undefined ? "exited" : `exited with code ${end.code}`;
    case "idle":
      return `closed after ${idleMinutes} min without input`;
    case "stopping":
      return "closed: the host is stopping";
    default:
      return "closed";
  }
}

/** `label` (what runs), its status, and the screen; an empty screen says so. */
export function screenReply(label: string, status: string, screen: string): string {
  const shown = label.length > 120 ? `${label.slice(0, 119)}…` : label;
  const body = screen.trim() === "" ? "(the screen is empty)" : codeBlock(screen);
  return `🖥 ${codeSpan(shown)} · ${status}\n${body}`;
}
