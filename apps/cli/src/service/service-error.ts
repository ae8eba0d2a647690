/**
 * A problem the user can fix (a missing config file, no permission to write the unit): printed as
 * one sentence. Exit code 2 for what is wrong in how the command was called, like a bad config
 * elsewhere in phonework; 1 for what went wrong while doing it.
 */
export class ServiceError extends Error {
  override readonly name = "ServiceError";

  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
