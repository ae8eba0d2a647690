// Protocol versions this build speaks. Within a version, changes are additive only: new optional
// fields, which an older peer ignores, or new frame types, which a side sends only to a peer that
// said it understands them (a capability in `register`); a frame type a peer does not know is
// answered with an `error` (BAD_FRAME), never a crash.
//
// v2: the router opens with a `challenge`; a paired node answers `register` with `auth` (its
// public key and a signature over the nonce). v1 hosts (shared secret only) are not admitted.
// v3: `delivery_id` is required on every deliverable frame (forward_response, notify,
// task_complete, send_file), so each answer and push has one delivery path. Router and host ship
// together, so v2 hosts are refused like v1 ones. Later additions within v3: `buttons`,
// `attachments`, notify's `edit_key`, and the worker frames (worker_task, worker_status,
// worker_result, worker_result_ack, worker_cancel), sent only to nodes with the `workers` capability;
// the terminal frames (terminal_open, terminal_input, terminal_resize, terminal_close, terminal_ack;
// terminal_opened, terminal_output, terminal_exit, terminal_refused), sent only to nodes with the
// `terminal` capability; worker_task's `plan_id` and `request_id` (the router relays a task only
// for a plan a request it forwarded started) and register_ok's `owners`; forward's `details` and
// progress's `kind` (tool calls, results and usage, sent only for a forward that asked for details); notify's
// `alert` (an older router ignores it; an older host's notifies are simply not pushed).
// Each version's samples are fixtures/v<N>/<type>.json, with a variant of a frame beside it as
// <type>.<variant>.json (progress.tool.json): the plain sample stays as older peers sent it.
export const PROTOCOL_VERSIONS = [3] as const;
export const CURRENT_PROTOCOL_VERSION = 3;

/** Highest version both sides speak, or undefined when they share none. */
export function negotiateVersion(
  offered: readonly number[],
  supported: readonly number[] = PROTOCOL_VERSIONS,
) {
  const common = offered.filter((v) => supported.includes(v));
  return common.length > 0 ? Math.max(...common) : undefined;
}
