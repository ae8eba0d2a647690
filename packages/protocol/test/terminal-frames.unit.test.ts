import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeFrame, HostFrame, MAX_TERMINAL_DATA, RouterFrame } from "../src/index.ts";

// The terminal frames' bounds: ids, sizes and data lengths a peer may send, and which side sends which.

const sample = (type: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "v3", `${type}.json`), "utf8"));
const asRouter = (frame: object) => decodeFrame(JSON.stringify(frame), RouterFrame);
const asHost = (frame: object) => decodeFrame(JSON.stringify(frame), HostFrame);

describe("terminal frames", () => {
  it("router → host: open, input, resize, close, ack; host → router: opened, output, exit, refused", () => {
    for (const type of [
      "terminal_open",
      "terminal_input",
      "terminal_resize",
      "terminal_close",
      "terminal_ack",
    ]) {
      expect(asRouter(sample(type))).toMatchObject({ ok: true });
      expect(asHost(sample(type))).toMatchObject({ ok: false, code: "BAD_FRAME" });
    }
    for (const type of ["terminal_opened", "terminal_output", "terminal_exit", "terminal_refused"]) {
      expect(asHost(sample(type))).toMatchObject({ ok: true });
      expect(asRouter(sample(type))).toMatchObject({ ok: false, code: "BAD_FRAME" });
    }
  });

  it("refuses ids that are empty, too long or hold other characters", () => {
    const input = sample("terminal_input");
    for (const id of ["", "x".repeat(129), "a b", "../x", "t\n1", "终端"])
      expect(asRouter({ ...input, id })).toMatchObject({ ok: false, code: "BAD_FRAME" });
    for (const id of ["x".repeat(128), "console:u1.t-1_2"])
      expect(asRouter({ ...input, id })).toMatchObject({ ok: true });
  });

  it("caps keystrokes and output at MAX_TERMINAL_DATA characters per frame", () => {
    const input = sample("terminal_input");
    expect(asRouter({ ...input, data: "x".repeat(MAX_TERMINAL_DATA) })).toMatchObject({ ok: true });
    expect(asRouter({ ...input, data: "x".repeat(MAX_TERMINAL_DATA + 1) })).toMatchObject({ ok: false });
    const output = sample("terminal_output");
    expect(asHost({ ...output, data: "x".repeat(MAX_TERMINAL_DATA + 1) })).toMatchObject({ ok: false });
    expect(asHost({ ...output, seq: -1 })).toMatchObject({ ok: false });
  });

  it("bounds sizes and credit to whole numbers in range", () => {
    const open = sample("terminal_open");
    for (const bad of [
      { cols: 0 },
      { cols: 1001 },
      { rows: 0 },
      { rows: 501 },
      { cols: 80.5 },
      { rows: "24" },
    ])
      expect(asRouter({ ...open, ...bad })).toMatchObject({ ok: false, code: "BAD_FRAME" });
    const ack = sample("terminal_ack");
    for (const bytes of [0, -5, 1.5, 2 ** 31, "10"])
      expect(asRouter({ ...ack, bytes })).toMatchObject({ ok: false, code: "BAD_FRAME" });
    const { user_id: _drop, ...anonymous } = sample("terminal_input");
    expect(asRouter(anonymous)).toMatchObject({ ok: false, code: "BAD_FRAME" });
  });

  it("an exit names one of the known reasons, and a whole exit code when the program ended itself", () => {
    const { code: _none, ...killed } = sample("terminal_exit");
    expect(asHost({ ...killed, reason: "idle" })).toMatchObject({ ok: true });
    const exit = sample("terminal_exit");
    expect(asHost({ ...exit, reason: "crashed" })).toMatchObject({ ok: false });
    expect(asHost({ ...exit, code: 1.5 })).toMatchObject({ ok: false });
  });
});
