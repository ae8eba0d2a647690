// A clock tests move by hand: reminders due in ten minutes fire when the test says ten minutes
// have passed, without sleeping. Starts at the real time so formatted dates look normal.

export interface ManualClock {
  now(): number;
  advance(ms: number): void;
  set(at: number): void;
}

export function createManualClock(start = Date.now()): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (at) => {
      current = at;
    },
  };
}

export const MINUTE = 60_000;
