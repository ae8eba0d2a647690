import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { atEndOfTurn } from "../src/end-of-turn.ts";

describe("atEndOfTurn", () => {
  it("runs once after the turn however often it was asked for, and again when asked in a later turn", async () => {
    let runs = 0;
    const schedule = atEndOfTurn(() => runs++);
    schedule();
    schedule();
    schedule();
    expect(runs).toBe(0); // not inside the turn that asked
    await nextTurn();
    expect(runs).toBe(1);
    schedule();
    await nextTurn();
    expect(runs).toBe(2);
  });

  it("asked for during its own run, it runs once more", async () => {
    let runs = 0;
    const schedule: () => void = atEndOfTurn(() => {
      if (++runs === 1) schedule();
    });
    schedule();
    await nextTurn();
    await nextTurn();
    expect(runs).toBe(2);
  });
});
