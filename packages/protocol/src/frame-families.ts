import type { HostFrame, RouterFrame } from "./frames.ts";

// Frames grouped by who sends them and what for. Each side handles every frame it can receive in
// one table (FrameHandlers): a frame type with no handler, or with two, does not compile, and a new
// family touches this package and the one feature that handles it.

/** Host → router: what the host's durable outbox delivers; each is acknowledged with push_ack. */
export type DeliverableFrame = Extract<
  HostFrame,
  { type: "forward_response" | "notify" | "task_complete" | "send_file" | "worker_result" }
>;

/** Host → router: what a host pushes to a chat on its own (no request waits for it). */
export type HostPushFrame = Extract<HostFrame, { type: "notify" | "task_complete" | "send_file" }>;

/** Host → router → host: Master/Worker frames, which the router relays between two nodes. */
export type HostWorkerFrame = Extract<
  HostFrame,
  { type: "worker_task" | "worker_status" | "worker_result" | "worker_result_ack" | "worker_cancel" }
>;
/** Router → host: the Master/Worker frames as the router relays them (with `from_node`). */
export type RouterWorkerFrame = Extract<
  RouterFrame,
  { type: "worker_task" | "worker_status" | "worker_result" | "worker_cancel" }
>;

/** Host → router: about terminals the router opened on the host (the web console's). */
export type HostTerminalFrame = Extract<
  HostFrame,
  { type: "terminal_opened" | "terminal_output" | "terminal_exit" | "terminal_refused" }
>;
/** Router → host: opening, typing into, resizing, acknowledging and closing a terminal. */
export type RouterTerminalFrame = Extract<
  RouterFrame,
  { type: "terminal_open" | "terminal_input" | "terminal_resize" | "terminal_close" | "terminal_ack" }
>;

/** Host → router: a user's overview, and notices that one changed (the web console's). */
export type HostOverviewFrame = Extract<HostFrame, { type: "overview" | "overview_changed" }>;

/**
 * One handler for each frame type of `F`, given that type's frame. A table of these is how a side
 * dispatches: `dispatchFrame(table, frame)`.
 */
export type FrameHandlers<F extends { type: string }> = {
  [T in F["type"]]: (frame: Extract<F, { type: T }>) => void;
};

/** Calls the table's handler for `frame`'s type. */
export function dispatchFrame<F extends { type: string }>(handlers: FrameHandlers<F>, frame: F): void {
  (handlers[frame.type as F["type"]] as (frame: F) => void)(frame);
}

/** Router → host: what a registered host is sent to handle (all but the link's own frames). */
export type HostBoundFrame = Exclude<
  RouterFrame,
  { type: "challenge" | "register_ok" | "register_error" | "ping" | "error" }
>;

/** Every key of the parts. */
export type KeysOf<Parts extends readonly object[]> = Parts extends readonly [
  infer Head,
  ...infer Rest extends readonly object[],
]
  ? keyof Head | KeysOf<Rest>
  : never;
/** The keys more than one of the parts has: frame types with two owners. */
export type HandledTwice<Parts extends readonly object[], Seen = never> = Parts extends readonly [
  infer Head,
  ...infer Rest extends readonly object[],
]
  ? (keyof Head & Seen) | HandledTwice<Rest, Seen | keyof Head>
  : never;

/**
 * Joins the features' handler tables into the side's one table. It compiles only when every frame
 * type of `F` has a handler and no type has two: `joinFrameHandlers<F>()(a.frames, b.frames, …)`.
 */
export function joinFrameHandlers<F extends { type: string }>() {
  return <const Parts extends readonly Partial<FrameHandlers<F>>[]>(
    ...parts: Parts &
      ([Exclude<F["type"], KeysOf<Parts>>] extends [never]
        ? unknown
        : { unhandled: Exclude<F["type"], KeysOf<Parts>> }) &
      ([HandledTwice<Parts>] extends [never] ? unknown : { handledTwice: HandledTwice<Parts> })
  ): FrameHandlers<F> => Object.assign({}, ...parts) as FrameHandlers<F>;
}
