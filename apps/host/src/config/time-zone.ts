import { DateTime } from "luxon";

/** Whether `zone` is an IANA time zone this machine knows (e.g. Asia/Shanghai). */
export function isTimeZone(zone: string): boolean {
  return DateTime.now().setZone(zone).isValid;
}
