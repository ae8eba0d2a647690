import type { ServerResponse } from "node:http";

// Shared by the fake model servers: a queue of scripted replies (values, or functions of the
// request) with a fallback, and a delay that ends early when the client hangs up.

export type ScriptedStep<Req, Reply> = Reply | ((request: Req) => Reply | Promise<Reply>);

export async function nextReply<Req, Reply>(
  queue: ScriptedStep<Req, Reply>[],
  fallback: (request: Req) => Reply,
  request: Req,
): Promise<Reply> {
  const step = queue.shift() ?? fallback;
  return typeof step === "function" ? (step as (request: Req) => Reply | Promise<Reply>)(request) : step;
}

/** Waits `ms`, or less if the client closes the connection; resolves true if it is still open. */
export function waitWhileOpen(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(!res.destroyed && !res.writableEnded), ms);
    res.once("close", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
