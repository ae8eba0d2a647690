import { type Clock, systemClock } from "@phonework/runtime";
import type { Check } from "./checks/check.ts";
import { checkCheckpointThread } from "./checks/checkpoint-thread.ts";

// What the checks depend on besides the config: injectable, so tests can pin the Node version,
// the date, and short timeouts.

export interface DoctorDeps {
  clock: Clock;
  /** The running Node.js version, e.g. "v22.12.0". */
  nodeVersion: string;
  /** How long a network check waits (connect, TLS, handshake, the platform's token). */
  timeoutMs: number;
  /** How long the model endpoint gets to answer one tiny request. */
  modelTimeoutMs: number;
  /** The "checkpoints" check: a worker thread started (~100 ms of CPU), so in-process tests may pin it. */
  checkpoints: () => Promise<Check>;
}

export interface DoctorContext extends DoctorDeps {
  /** --offline: nothing beyond this machine is contacted. */
  offline: boolean;
  env: NodeJS.ProcessEnv;
}

export function defaultDoctorDeps(): DoctorDeps {
  return {
    clock: systemClock,
    nodeVersion: process.version,
    timeoutMs: 5_000,
    modelTimeoutMs: 10_000,
    checkpoints: () => checkCheckpointThread(),
  };
}
