import { describe, expect, it } from "vitest";
import { JsonRpcError } from "../src/coding/codex-json-rpc.ts";
import { listThreads, readThread } from "../src/coding/codex-threads.ts";

// Reading the app-server's thread/list and thread/read answers (their shape as codex 0.169 sends
// it, trimmed): what PhoneWork keeps, and what it leaves out.

const rpc = (answer: (method: string, params: unknown) => unknown) => {
  const calls: Array<[string, unknown]> = [];
  return {
    calls,
    request: async <T>(method: string, params: unknown): Promise<T> => {
      calls.push([method, params]);
      return answer(method, params) as T;
    },
  };
};

const thread = (id: string, updatedAt: number, extra: Record<string, unknown> = {}) => ({
  id,
  preview: `first message of ${id}`,
  name: null,
  createdAt: updatedAt - 100,
  updatedAt,
  cwd: `/work/${id}`,
  source: "vscode",
  status: { type: "idle" },
  turns: [],
  ...extra,
});

describe("Codex thread/list and thread/read", () => {
  it("asks for the newest by update, keeps id, title, cwd and time (ms), and drops malformed entries", async () => {
    const server = rpc(() => ({
      data: [
        thread("a", 100),
        { id: "broken" }, // no updatedAt
        thread("b", 300, { name: "Login bug", cwd: null }),
        thread("c", 200, { preview: undefined }),
      ],
      nextCursor: "next",
    }));
    expect(await listThreads(server, 20)).toEqual([
      { id: "b", title: "Login bug", updatedAt: 300_000 },
      { id: "c", title: "", updatedAt: 200_000, cwd: "/work/c" },
      { id: "a", title: "first message of a", updatedAt: 100_000, cwd: "/work/a" },
    ]);
    expect(server.calls).toEqual([["thread/list", { limit: 20, sortKey: "updated_at" }]]);
  });

  it("an unknown thread is undefined; an app-server that is gone is an error", async () => {
    const unknown = rpc(() => {
      throw new JsonRpcError("thread not loaded: x", -32600);
    });
    expect(await readThread(unknown, "x")).toBeUndefined();
    const gone = rpc(() => {
      throw new JsonRpcError("codex exited (code 1)");
    });
    await expect(readThread(gone, "x")).rejects.toThrow("codex exited");
    const known = rpc(() => ({ thread: thread("t", 5) }));
    expect(await readThread(known, "t")).toEqual({
      id: "t",
      title: "first message of t",
      updatedAt: 5000,
      cwd: "/work/t",
    });
  });
});
