import { z } from "zod";
import { JsonRpcError, type JsonRpcProcess } from "./codex-json-rpc.ts";
import type { AgentThread, AgentThreads } from "./coding-agent.ts";

// The conversations Codex keeps on this machine (from PhoneWork or from the terminal), read from
// the app-server's thread/list and thread/read, so a chat can continue one. Only the fields used
// here are checked; a thread the app-server describes in a shape we do not know is left out.

const Thread = z.object({
  id: z.string().min(1),
  /** Usually the first user message. */
  preview: z.string().catch(""),
  name: z.string().nullish(),
  /** Unix seconds. */
  updatedAt: z.number(),
  cwd: z.string().nullish(),
});
type Thread = z.infer<typeof Thread>;

/** The part of the app-server connection used here. */
type Rpc = Pick<JsonRpcProcess, "request">;

const ListResult = z.object({ data: z.array(z.unknown()) });
const ReadResult = z.object({ thread: Thread });

const toAgentThread = (thread: Thread): AgentThread => ({
  id: thread.id,
  title: (thread.name || thread.preview).trim(),
  updatedAt: thread.updatedAt * 1000,
  ...(thread.cwd ? { cwd: thread.cwd } : {}),
});

/** The newest `limit` threads by last update. */
export async function listThreads(rpc: Rpc, limit: number): Promise<AgentThread[]> {
  const result = ListResult.parse(await rpc.request("thread/list", { limit, sortKey: "updated_at" }));
  return result.data
    .flatMap((raw) => {
      const parsed = Thread.safeParse(raw);
      return parsed.success ? [toAgentThread(parsed.data)] : [];
    })
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .slice(0, limit);
}

/**
 * One thread by id; undefined when the app-server answers that there is none (it errs with a
 * code for an unknown or malformed id). A failure to ask at all (the app-server died) throws.
 */
export async function readThread(rpc: Rpc, id: string): Promise<AgentThread | undefined> {
  let raw: unknown;
  try {
    raw = await rpc.request("thread/read", { threadId: id });
  } catch (error) {
    if (error instanceof JsonRpcError && error.code !== undefined) return undefined;
    throw error;
  }
  return toAgentThread(ReadResult.parse(raw).thread);
}

/** The catalog a Codex agent offers, over its (re)started app-server. */
export function codexThreads(server: () => Promise<Rpc>): AgentThreads {
  return {
    list: async (limit) => listThreads(await server(), limit),
    read: async (id) => readThread(await server(), id),
  };
}
