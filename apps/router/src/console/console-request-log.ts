import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

// Fastify logs every request at info. A console page asks for its script, styles, session and
// socket each time it opens: at info that is noise, so the console's requests are logged at
// debug. Every other request, and every error or warning (the console's included), keep their level.

export const CONSOLE_PATH = "/console";

const isConsole = (request: FastifyRequest) =>
  request.url === CONSOLE_PATH || /^\/console[/?]/.test(request.url);

export class QuietConsoleRequests extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!isConsole(request)) super.incomingRequest(request, reply);
    else if (!this.isLogDisabled(request)) request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error || !isConsole(request)) super.requestCompleted(error, request, reply);
    else if (!this.isLogDisabled(request))
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, "request completed");
  }
}
