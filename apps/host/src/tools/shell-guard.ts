// A blocklist for the seed's destructive commands. It stops accidents and obvious mistakes
// by the model; it is NOT a sandbox: a determined command (an interpreter, an encoded
// payload, a script written to disk and run) can get past any pattern list. See the README.

const BLOCKED: Array<{ pattern: RegExp; reason: string }> = [
  {
    // rm -rf /, rm -fr ~, rm -r --no-preserve-root /, rm -rf /* …
    pattern: /\brm\s+(?:-\S+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-\S+\s+)*(?:\/|~|\$HOME|\/\*)(?:\s|$|;|&|\|)/,
    reason: "recursive delete of / or the home directory",
  },
  { pattern: /--no-preserve-root/, reason: "rm --no-preserve-root" },
  { pattern: /\bmkfs(?:\.\w+)?\b/, reason: "formatting a filesystem (mkfs)" },
  { pattern: /(?:^|[\s;&|(])format(?:\.com)?\s+[a-z]:/i, reason: "formatting a drive" },
  {
    // as a command (start of line, after ; & | ( or sudo/exec/systemctl), not as a word in `grep reboot log`
    pattern: /(?:^|[;&|(`{]|\b(?:sudo|exec|nohup|systemctl)\s)\s*(?:shutdown|reboot|halt|poweroff)\b/,
    reason: "shutting down or rebooting the machine",
  },
  { pattern: /\binit\s+[06]\b/, reason: "shutting down or rebooting the machine" },
  { pattern: /\bdd\s+(?:\S+\s+)*if=/, reason: "raw disk copy (dd if=)" },
  { pattern: />\s*\/dev\/(?:sd|nvme|hd|vd|mmcblk)/, reason: "writing to a raw disk device" },
  { pattern: /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, reason: "fork bomb" },
  {
    pattern: /\bchmod\s+(?:-\S+\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+\/(?:\s|$)/,
    reason: "recursive chmod of /",
  },
];

/** The reason a command is refused, or undefined if the blocklist lets it through. */
export function blockedReason(command: string): string | undefined {
  const normalized = command.replace(/\\\n/g, " ");
  return BLOCKED.find(({ pattern }) => pattern.test(normalized))?.reason;
}
