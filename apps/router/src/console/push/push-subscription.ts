import { z } from "zod";

// A page's push subscription (PushSubscription.toJSON()), checked before it is kept: an https
// endpoint of a sane length, a P-256 public key (65 bytes) and a 16-byte auth secret, base64url.

const base64url = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+=*$/)
    .refine((text) => Buffer.from(text, "base64url").length === bytes, `must be ${bytes} bytes`);

export const PushSubscriptionInput = z.object({
  endpoint: z
    .string()
    .max(2048)
    .refine((text) => URL.canParse(text) && new URL(text).protocol === "https:", "must be an https URL"),
  keys: z.object({ p256dh: base64url(65), auth: base64url(16) }),
});
export type PushSubscriptionInput = z.infer<typeof PushSubscriptionInput>;
