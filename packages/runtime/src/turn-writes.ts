// Frames sent to a socket in one turn of the event loop leave in one write (one writev syscall)
// instead of one each: the socket is corked at its first frame of the turn and uncorked once the
// turn's microtasks have run. A turn often sends many: a group commit settles a whole turn's
// writes and their acks follow in the microtasks right after; one TCP read can hold several
// requests. On this kind of VM a syscall per frame was the biggest single cost of a forwarded message.
// The uncork is a process.nextTick queued from a microtask: it runs once the microtask queue has
// drained, so frames sent from promise callbacks later in the same turn join the batch, and a lone
// frame leaves in its own turn, before any I/O or timer. Writes keep their order (one stream), and
// `ws` corks around its own frames too (nested corks count). A socket ended while corked is flushed
// by `end()`; one destroyed drops what is held, as a destroyed socket drops what the kernel had not
// sent. Held bytes count in `writableLength` (so in ws's bufferedAmount); past MAX_HELD_BYTES the
// batch is flushed at once, so writers that wait for the backlog to fall are not held for a turn.

/** What this needs of a socket (net.Socket, tls.TLSSocket). */
export interface CorkableStream {
  cork(): void;
  uncork(): void;
  readonly writableLength: number;
}

/** Past this many bytes held, a batch is written before the next frame is added. */
export const MAX_HELD_BYTES = 32 * 1024;

/** One per side (router, host), not per socket: one microtask and one tick a turn, whoever sends. */
export class TurnWrites {
  /** The sockets corked this turn. */
  private held = new Set<CorkableStream>();
  /** The set being released: swapped out first, as an uncork may send (an error's close frame). */
  private releasing = new Set<CorkableStream>();
  private readonly releaseAll = () => {
    const streams = this.held;
    this.held = this.releasing;
    this.releasing = streams;
    // Every stream is uncorked and the set emptied even if one uncork throws: a stream left in
    // the set would keep `held` non-empty for good (no release queued again), so every socket of
    // the process would stay corked. The first error is thrown after, as it would have been.
    let failure: { error: unknown } | undefined;
    for (const stream of streams)
      try {
        stream.uncork();
      } catch (error) {
        failure ??= { error };
      }
    streams.clear();
    if (failure) throw failure.error;
  };
  private readonly releaseAfterMicrotasks = () => process.nextTick(this.releaseAll);

  /** Call before each write to `stream`: holds it until the end of this turn. */
  hold(stream: CorkableStream): void {
    if (this.held.has(stream)) {
      if (stream.writableLength < MAX_HELD_BYTES) return;
      stream.uncork(); // write what is held now; stay corked for the rest of the turn
      stream.cork();
      return;
    }
    if (this.held.size === 0) queueMicrotask(this.releaseAfterMicrotasks);
    this.held.add(stream);
    stream.cork();
  }
}
