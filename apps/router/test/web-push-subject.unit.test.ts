import { loadConfig } from "@phonework/runtime";
import { describe, expect, it } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { DEFAULT_WEB_PUSH_SUBJECT, webPushSubject } from "../src/config/web-push-subject.ts";
import { pushPayloadOf } from "../src/console/push/push-alerts.ts";
import { phoneAlertOf } from "../src/delivery/phone-alert-of.ts";

// WEB_PUSH_SUBJECT (the VAPID contact) is checked with an error naming the key and defaults from
// PUBLIC_URL; and what a host's push says on the phone is a short summary, never the output.

const load = (env: Record<string, string>) => loadConfig(RouterConfigSchema, { env }).config;

describe("WEB_PUSH_SUBJECT", () => {
  it("takes a mailto: address or an https: URL, and refuses anything else naming the key", () => {
    expect(load({ WEB_PUSH_SUBJECT: "mailto:ops@example.org" }).WEB_PUSH_SUBJECT).toBe(
      "mailto:ops@example.org",
    );
    expect(load({ WEB_PUSH_SUBJECT: "https://router.example.org" }).WEB_PUSH_SUBJECT).toBe(
      "https://router.example.org",
    );
    for (const bad of ["ops@example.org", "http://router.example.org", "mailto:", "javascript:alert(1)"])
      expect(() => load({ WEB_PUSH_SUBJECT: bad }), bad).toThrow(/WEB_PUSH_SUBJECT: must be a mailto:/);
  });

  it("defaults to PUBLIC_URL when it is https, else a mailto: placeholder", () => {
    expect(webPushSubject(load({ PUBLIC_URL: "https://router.example.org/x" }))).toBe(
      "https://router.example.org",
    );
    expect(webPushSubject(load({ PUBLIC_URL: "http://10.0.0.2:8000" }))).toBe(DEFAULT_WEB_PUSH_SUBJECT);
    expect(webPushSubject(load({}))).toBe(DEFAULT_WEB_PUSH_SUBJECT);
    expect(webPushSubject(load({ WEB_PUSH_SUBJECT: "mailto:a@b.c", PUBLIC_URL: "https://x.org" }))).toBe(
      "mailto:a@b.c",
    );
  });
});

describe("a host's push on the phone", () => {
  const base = { user_id: "telegram:1", delivery_id: "d1" };
  it("a failed task: its first line of description, never its output", () => {
    const alert = phoneAlertOf("work-srv", {
      ...base,
      type: "task_complete",
      task_id: "7",
      ok: false,
      description: `make ${"x".repeat(200)}\nsecond line`,
      output: "SECRET",
      elapsed_ms: 5000,
    });
    expect(alert?.title).toBe("Task failed");
    expect(alert?.body).toMatch(/^❌ make x+… failed on work-srv \(5s\)$/);
    expect(JSON.stringify(alert)).not.toContain("SECRET");
  });

  it("an approval keeps only /approve and /deny buttons; reminders and plans say their first line", () => {
    const approval = phoneAlertOf("n1", {
      ...base,
      type: "notify",
      text: "🔐 run rm?\nReply /approve ab12",
      alert: "approval",
      buttons: [
        [
          { label: "Approve", command: "/approve ab12" },
          { label: "Shell", command: "/shell rm -rf /" },
        ],
      ],
    });
    expect(approval && pushPayloadOf(approval).actions).toEqual([
      { action: "/approve ab12", title: "Approve" },
    ]);
    const reminder = phoneAlertOf("n1", {
      ...base,
      type: "notify",
      text: "⏰ dentist\nat 9",
      alert: "reminder",
    });
    expect(reminder).toMatchObject({ title: "Reminder from n1", body: "⏰ dentist" });
    const plan = phoneAlertOf("n1", {
      ...base,
      type: "notify",
      text: "Task complete.\nlong report",
      alert: "plan",
    });
    expect(plan).toMatchObject({ kind: "plan", body: "Task complete." });
    expect(phoneAlertOf("n1", { ...base, type: "notify", text: "no alert" })).toBeUndefined();
    expect(
      phoneAlertOf("n1", { ...base, type: "send_file", name: "a.txt", data_base64: "aGk=" }),
    ).toBeUndefined();
  });
});
