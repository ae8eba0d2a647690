import { z } from "zod";

// WEB_PUSH_SUBJECT: the contact push services see in each push's VAPID JWT (`sub`), a mailto: or
// https: address. Unset: the router's PUBLIC_URL when it is https (push services accept a site),
// else a mailto: placeholder that says who sent it.

export const DEFAULT_WEB_PUSH_SUBJECT = "mailto:phonework@example.com";

const isSubject = (value: string) =>
  /^mailto:[^\s@]+@[^\s@]+$/.test(value) || (URL.canParse(value) && new URL(value).protocol === "https:");

export const webPushSubjectField = () =>
  z.preprocess(
    (value) => (value === "" || value === null ? undefined : value),
    z
      .string()
      .refine(isSubject, "must be a mailto: address (mailto:you@example.com) or an https: URL")
      .optional(),
  );

export function webPushSubject(config: {
  WEB_PUSH_SUBJECT?: string | undefined;
  PUBLIC_URL?: string | undefined;
}) {
  if (config.WEB_PUSH_SUBJECT) return config.WEB_PUSH_SUBJECT;
  const publicUrl = config.PUBLIC_URL ? new URL(config.PUBLIC_URL) : undefined;
  return publicUrl?.protocol === "https:" ? publicUrl.origin : DEFAULT_WEB_PUSH_SUBJECT;
}
