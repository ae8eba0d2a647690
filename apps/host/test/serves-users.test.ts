import { describe, expect, it } from "vitest";
import { startHostWithModel } from "./support.ts";

// A host applies its own SERVES_USERS to every frame that acts for a user, whatever the router
// sends: a forwarded message for anyone else is refused before the assistant sees it.

describe("SERVES_USERS on the host", () => {
  it("refuses a forwarded message for a user it does not serve; answers one it does", async () => {
    const s = await startHostWithModel({ SERVES_USERS: ["telegram:1"] });
    s.model.script({ text: "hello, 1" });
    const forward = (id: string, user: string) =>
      s.router
        .latest()
        .send({ type: "forward", id, user_id: user, chat_id: user, platform: "telegram", text: "hi" });

    forward("r-stranger", "telegram:2");
    expect(
      await s.router.latest().inbox.next("forward_response", (f) => f.id === "r-stranger"),
    ).toMatchObject({
      error: { code: "UNAUTHORIZED", message: "this node does not serve you (its SERVES_USERS)" },
      user_id: "telegram:2",
    });
    forward("r-served", "telegram:1");
    expect(await s.router.latest().inbox.next("forward_response", (f) => f.id === "r-served")).toMatchObject({
      text: "hello, 1",
    });
    expect(s.model.requests).toHaveLength(1);
  });
});
