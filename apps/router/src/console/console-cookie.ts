// The console's sign-in cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's
// page sends it), scoped to /console, Secure when browsers reach the router over HTTPS.

export const SESSION_COOKIE = "phonework_console";
const PATH = "/console";

/** The value of cookie `name` in a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

export function sessionCookie(token: string, options: { maxAgeS: number; secure: boolean }): string {
  const attributes = [
    `Path=${PATH}`,
    `Max-Age=${Math.floor(options.maxAgeS)}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  return [`${SESSION_COOKIE}=${token}`, ...attributes, ...(options.secure ? ["Secure"] : [])].join("; ");
}

export function clearedCookie(secure: boolean): string {
  return sessionCookie("", { maxAgeS: 0, secure });
}
