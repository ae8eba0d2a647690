import { type Check, ok, warn } from "./check.ts";

// Who may pair hosts and manage nodes from chat: ADMINS, else the only ALLOWED_USERS entry (the
// router's rule, see its pairing/admins.ts).

export function checkAdmins(admins: readonly string[], allowedUsers: readonly string[]): Check {
  if (admins.length > 0) return ok("ADMINS", admins.join(", "));
  const only = allowedUsers.length === 1 && allowedUsers[0] !== "*" ? allowedUsers[0] : undefined;
  if (only) return ok("ADMINS", `not set: the only ALLOWED_USERS entry (${only}) is the admin`);
  return warn(
    "ADMINS",
    "not set: nobody can pair hosts (/pair) or manage nodes from chat; only `phonework pair` on this machine can",
    "set ADMINS to your chat user id (your Feishu open_id ou_…, your Telegram numeric user id); several: comma-separated",
  );
}
