import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { HandshakeAdmission, spreadRetryAfter } from "../src/node-link/handshake-admission.ts";

// The bound on node handshakes in flight and per turn of the event loop.

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("handshake admission", () => {
  it("holds at most maxInFlight places; a close or a release frees one; a stale one gives way", async () => {
    let now = 0;
    const admission = new HandshakeAdmission(2, 16, () => now);
    const [a, b, c] = [new PassThrough(), new PassThrough(), new PassThrough()];
    expect(admission.tryAdmit(a)).toBe(true);
    expect(admission.tryAdmit(b)).toBe(true);
    expect(admission.tryAdmit(c)).toBe(false);
    admission.release(b);
    admission.release(b); // twice is once
    expect(admission.active).toBe(1);
    expect(admission.tryAdmit(c)).toBe(true);
    expect(admission.tryAdmit(new PassThrough())).toBe(false);
    now = 500;
    admission.started(c); // c's upgrade started late (it waited for its turn): its age counts from here
    now = 1_000; // a has had its second, c not: the oldest (a) is dropped for the newcomer
    const d = new PassThrough();
    expect(admission.tryAdmit(d)).toBe(true);
    expect(a.destroyed).toBe(true);
    expect(c.destroyed).toBe(false);
    expect(admission.tryAdmit(new PassThrough())).toBe(false); // c is not stale yet
    d.destroy();
    await turn();
    expect(admission.active).toBe(1);
  });

  it("takes its close listener off a socket whose place it gives back: nothing of it stays on a registered host's socket", () => {
    const admission = new HandshakeAdmission(2, 16);
    const socket = new PassThrough();
    const before = socket.listenerCount("close");
    expect(admission.tryAdmit(socket)).toBe(true);
    expect(socket.listenerCount("close")).toBe(before + 1);
    admission.release(socket);
    expect(socket.listenerCount("close")).toBe(before);
    // Dropped as stale: the place and the listener go too.
    let now = 0;
    const stale = new HandshakeAdmission(1, 16, () => now);
    const old = new PassThrough();
    stale.tryAdmit(old);
    now = 5_000;
    expect(stale.tryAdmit(new PassThrough())).toBe(true);
    expect(old.listenerCount("close")).toBe(before);
  });

  it("starts at most perTurn per turn of the event loop, the rest in later turns, in order", async () => {
    const admission = new HandshakeAdmission(100, 3);
    const started: number[] = [];
    for (let i = 0; i < 8; i++) admission.schedule(() => started.push(i));
    expect(started).toEqual([0, 1, 2]);
    await turn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    await turn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("paces register frames with a share of their own, so upgrades and registrations do not starve each other", async () => {
    const admission = new HandshakeAdmission(100, 2, Date.now, 2);
    const ran: string[] = [];
    for (let i = 0; i < 3; i++) {
      admission.schedule(() => ran.push(`upgrade ${i}`));
      admission.scheduleRegistration(() => ran.push(`register ${i}`));
    }
    expect(ran).toEqual(["upgrade 0", "register 0", "upgrade 1", "register 1"]);
    await turn();
    expect(ran.slice(4).sort()).toEqual(["register 2", "upgrade 2"]);
  });

  it("spreads Retry-After over 1..5 s", () => {
    expect(spreadRetryAfter(() => 0)).toBe("1");
    expect(spreadRetryAfter(() => 0.999)).toBe("5");
  });
});
