// WebSocket close codes of /console/ws. No imports: the page's bundle takes this file as it is.

export const ConsoleCloseCode = {
  /** The sign-in ended (signed out, `/console logout-all`, expired): the page says so and stays closed. */
  SIGNED_OUT: 4401,
  /** A frame the router could not read, or more than it takes. */
  BAD_FRAME: 1008,
  /** The router is restarting: the page reconnects. */
  RESTART: 1012,
} as const;
