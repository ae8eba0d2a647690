import { addConfigSecrets, type SecretValues } from "@phonework/runtime";
import type { Check, CheckStatus } from "./checks/check.ts";

// Writes each check as one line the moment it is known (network checks take a while), and counts
// them. Every line is redacted: a secret that an error message carries never reaches the screen.

const ICONS: Record<CheckStatus, string> = { ok: "✅", warn: "⚠️", fail: "❌" };

export function checkLine(check: Check): string {
  const fix = check.fix ? ` → ${check.fix}` : "";
  return `${ICONS[check.status]} ${check.title}: ${check.detail}${fix}`;
}

export class CheckPrinter {
  private readonly counts: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0 };

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly secrets: SecretValues,
  ) {}

  print(checks: Check | Check[]): void {
    for (const check of Array.isArray(checks) ? checks : [checks]) {
      this.counts[check.status]++;
      this.out.write(`${this.secrets.redact(checkLine(check))}\n`);
    }
  }

  /** The secret-named values of a config just loaded (from its file, too) are never printed. */
  addSecrets(config: object): void {
    addConfigSecrets(this.secrets, config as Record<string, unknown>);
  }

  get failures(): number {
    return this.counts.fail;
  }

  /** The closing line; no icon in it, so counting ❌ lines gives the exit code. */
  printSummary(): void {
    const { ok, warn, fail } = this.counts;
    const verdict = fail === 0 ? "no problems found" : `${fail} to fix`;
    this.out.write(`\n${verdict} (${ok} ok, ${warn} warnings, ${fail} failed)\n`);
  }
}
