// Discord's error answers: an HTTP status with a JSON body of a numeric code and a message, as the
// real API sends them (the codes the adapter decides on are the real ones).

export class DiscordApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const unknownChannel = () => new DiscordApiError(404, 10003, "Unknown Channel");
export const unknownMessage = () => new DiscordApiError(404, 10008, "Unknown Message");
export const unknownInteraction = () => new DiscordApiError(404, 10062, "Unknown interaction");
export const unauthorized = () => new DiscordApiError(401, 0, "401: Unauthorized");
export const invalidForm = (why: string) => new DiscordApiError(400, 50035, `Invalid Form Body: ${why}`);
export const cannotDm = () => new DiscordApiError(403, 50007, "Cannot send messages to this user");
