import { defaultCodeFor, defaultMsgFor, type FeishuError } from "./errors.ts";

// Scripted failures: the next `times` HTTP calls whose path matches answer with the fault instead of
// the real route. A fault with a 2xx status and no code only delays, then lets the route answer.

export interface FeishuFault {
  status: number;
  code?: number;
  msg?: string;
  headers?: Record<string, string>;
  times?: number;
  delayMs?: number;
}

interface ArmedFault {
  pattern: RegExp;
  fault: FeishuFault;
  remaining: number;
}

export interface FaultPlan {
  /** The error to answer with (undefined: pass through), and how long to wait first. */
  error?: FeishuError;
  delayMs: number;
}

export class FaultQueue {
  private readonly armed: ArmedFault[] = [];

  add(pattern: RegExp, fault: FeishuFault): void {
    this.armed.push({ pattern, fault, remaining: fault.times ?? 1 });
  }

  /** Consumes the first armed fault matching `path`, if any. */
  take(path: string): FaultPlan | undefined {
    const index = this.armed.findIndex((armed) => {
      armed.pattern.lastIndex = 0; // a /g pattern must not remember the previous path
      return armed.pattern.test(path);
    });
    const armed = index >= 0 ? this.armed[index] : undefined;
    if (!armed) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.armed.splice(index, 1);
    const { fault } = armed;
    const passThrough = fault.status < 300 && fault.code === undefined;
    return {
      delayMs: fault.delayMs ?? 0,
      error: passThrough
        ? undefined
        : {
            status: fault.status,
            code: fault.code ?? defaultCodeFor(fault.status),
            msg: fault.msg ?? defaultMsgFor(fault.status),
            headers: fault.headers,
          },
    };
  }
}
