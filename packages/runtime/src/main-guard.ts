import { ConfigError } from "./config-loader.ts";
import { SecretValues } from "./secret-values.ts";
import { StartupError } from "./startup-error.ts";

/**
 * How the `phonework` executable ends on an error: a ConfigError prints its message and exits 2, a
 * StartupError exits 1 with its message, anything else exits 1 with its redacted stack.
 */
export function exitOnError(error: unknown, stderr: NodeJS.WritableStream = process.stderr): never {
  if (error instanceof ConfigError) {
    stderr.write(`phonework: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof StartupError) {
    stderr.write(`phonework: ${error.message}\n`);
    process.exit(1);
  }
  // An SDK's error can carry a bearer or Feishu token. The config's values are not known out
  // here (startProgram has them, inside `main`), so only the secret patterns apply.
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  stderr.write(`phonework: fatal: ${new SecretValues().redact(detail)}\n`);
  process.exit(1);
}
