import type { FrameHandlers, HandledTwice, ProgressKind, WireError } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { NodeAnswer } from "./node-answer.ts";

// The frame table a registered node's frames dispatch through. Each feature folder owns the frame
// types it handles and gives its part of the table (delivery/, workers/, rpc/, registry/,
// terminals/, overview/); the router merges the parts with mergeFrameTables, which does not compile
// when two parts claim one frame type, and the node socket takes the result only when every frame
// type a host sends has its handler. A new frame family: the protocol package and one folder.

/** The requests a node's connection waits on answers to (rpc/pending-requests.ts). */
export interface AnswerWaiters {
  resolve(id: string, answer: NodeAnswer): boolean;
  reject(id: string, error: WireError): boolean;
  progress(id: string, text: string, kind?: ProgressKind): boolean;
}

/** Where a frame came from: the registered node, its waiting requests, its logger. */
export interface FrameSource {
  readonly nodeId: string;
  readonly pending: AnswerWaiters;
  readonly log: Logger;
}

/** One feature's part of the table, for one connection: a handler per frame type of its family. */
export type FrameTable<F extends { type: string }> = (from: FrameSource) => FrameHandlers<F>;

type AnyTable = (from: FrameSource) => object;
type Parts<T extends readonly AnyTable[]> = { [K in keyof T]: ReturnType<T[K]> };

type Merged<T extends readonly AnyTable[]> = T extends readonly [
  infer Head extends AnyTable,
  ...infer Rest extends readonly AnyTable[],
]
  ? ReturnType<Head> & Merged<Rest>
  : unknown;

/**
 * The tables as one, for each connection (the protocol's joinFrameHandlers, for tables made per
 * connection). Two tables that handle the same frame type give a type that no frame table accepts,
 * naming the types that have two owners.
 */
export function mergeFrameTables<const T extends readonly AnyTable[]>(
  ...tables: T
): [HandledTwice<Parts<T>>] extends [never]
  ? (from: FrameSource) => Merged<T>
  : { "frame types with two owners": HandledTwice<Parts<T>> } {
  return ((from: FrameSource) => Object.assign({}, ...tables.map((table) => table(from)))) as never;
}
