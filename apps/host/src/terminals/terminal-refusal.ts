import type { ErrorCode } from "@phonework/protocol";

// Why a terminal was not opened or a terminal frame not carried out: a value with a wire code, so
// the link answers `terminal_refused` with it and the chat says the message as it is.

export class TerminalRefusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "TerminalRefusal";
  }
}
