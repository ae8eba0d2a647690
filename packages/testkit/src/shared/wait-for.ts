// Poll until a condition holds, with a deadline. Tests wait on conditions, never on sleeps.

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  message?: string;
}

export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new Error(`timed out waiting for ${options.message ?? "condition"}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}
