import { waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import {
  buildTestAssets,
  consoleLinkFor,
  launchChromium,
  PHONE,
  picturePath,
  seriousFindings,
  waitForLive,
} from "./console-support.ts";
import { onCleanup, startTestRouter } from "./support.ts";

// The console's service worker shows what the router pushes: Chromium is handed a push for the
// worker (DevTools' ServiceWorker.deliverPushMessage, the message as the browser would decrypt it)
// and the notification it shows has the title, the summary and the Approve/Deny actions. And the
// Notifications section on the phone's Nodes tab shows its state and passes axe-core.

/** The page's globals used here (this tsconfig has no DOM types). */
interface PageGlobals {
  navigator: {
    serviceWorker: {
      ready: Promise<{
        getNotifications(): Promise<
          { title: string; body: string; tag: string; actions: { action: string }[] }[]
        >;
      }>;
    };
  };
}

describe("the console's service worker", () => {
  it("shows a pushed notification with its actions", async () => {
    const assets = await buildTestAssets();
    const { url, chat } = await startTestRouter({}, { consoleAssets: assets.dir });
    const browser = await launchChromium();
    const context = await browser.newContext({ viewport: PHONE });
    onCleanup(() => context.close());
    await context.grantPermissions(["notifications"], { origin: url });
    const page = await context.newPage();
    await page.goto(await consoleLinkFor(chat, "alice"));
    await page.waitForURL(/\/console\/$/);
    await waitForLive(page);
    await page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.serviceWorker.ready);

    // The opt-in, off on this device; the choice of nodes asks for at least one; no serious findings.
    await page.getByRole("tab", { name: /Nodes/ }).click();
    await page.locator(".notifications .push-state", { hasText: "Off on this device." }).waitFor();
    await page.getByLabel("Chosen nodes").check();
    await page.locator(".notifications .push-problem", { hasText: "Choose at least one node." }).waitFor();
    const findings = await seriousFindings(page);
    expect(findings).toEqual([]);
    const picture = picturePath("notifications-phone");
    if (picture) await page.locator(".notifications").screenshot({ path: picture });

    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on("ServiceWorker.workerRegistrationUpdated", (event) => registrations.push(...event.registrations));
    await cdp.send("ServiceWorker.enable");
    const registration = await waitFor(
      () => registrations.find((known) => known.scopeURL === `${url}/console/`),
      { message: "the console's worker registration" },
    );
    const data = JSON.stringify({
      title: "Approval waiting on work-srv",
      body: "🔐 Codex wants to run: pnpm build",
      tag: "approval-work-srv",
      url: "/console/",
      node: "work-srv",
      actions: [
        { action: "/approve 3f2a", title: "Approve" },
        { action: "/deny 3f2a", title: "Deny" },
      ],
    });
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: url,
      registrationId: registration.registrationId,
      data,
    });
    const shown = await waitFor(
      async () => {
        const list = await page.evaluate(async () =>
          (await (globalThis as unknown as PageGlobals).navigator.serviceWorker.ready)
            .getNotifications()
            .then((all) =>
              all.map((n) => ({ title: n.title, body: n.body, tag: n.tag, actions: n.actions })),
            ),
        );
        return list.length > 0 ? list : undefined;
      },
      // The worker starts for the push and fetches the icon: slow on a busy machine.
      { message: "the notification the worker showed", timeoutMs: 20_000 },
    );
    expect(shown).toEqual([
      {
        title: "Approval waiting on work-srv",
        body: "🔐 Codex wants to run: pnpm build",
        tag: "approval-work-srv",
        actions: [
          expect.objectContaining({ action: "/approve 3f2a", title: "Approve" }),
          expect.objectContaining({ action: "/deny 3f2a", title: "Deny" }),
        ],
      },
    ]);
  }, 60_000); // a browser context, one axe-core run and a push: ~5 s alone, more on a busy machine
});
