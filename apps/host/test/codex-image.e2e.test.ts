import { decodeDataUrl, imageFixture, imageHeader } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { startCodexWorld } from "./codex-support.ts";

// A photo sent to a Codex session: the host hands the real `codex app-server` a `localImage` input
// item (the saved file's path), and Codex sends the image to the (fake) Responses API itself.

const SECRET = "codex-image-secret";

describe("Codex sessions and images (real codex app-server, fake model)", () => {
  it("a screenshot sent to the session reaches the Responses API as an input image beside the words", async () => {
    const { model, router } = await startCodexWorld(SECRET);
    let n = 0;
    const ask = async (text: string, extra: Record<string, unknown> = {}) => {
      const id = `r${++n}`;
      router
        .latest()
        .send({ type: "forward", id, user_id: "u1", chat_id: "c1", platform: "t", text, ...extra });
      return router.latest().inbox.next("forward_response", (f) => f.id === id, 60_000);
    };
    model.script({ text: "Ready." }, { text: "config.yaml is missing." });
    expect((await ask("/new demo codex hello")).text).toBe("Ready.");
    const answer = await ask("why does this fail?", {
      attachments: [
        {
          name: "shot.png",
          mime_type: "image/png",
          data_base64: imageFixture("screenshot.png").toString("base64"),
        },
      ],
    });
    expect(answer.text).toBe("config.yaml is missing.");
    const last = model.requests.at(-1);
    expect(model.userTexts(last).join("\n")).toContain("why does this fail?");
    const images =
      JSON.stringify(last?.input ?? []).match(/data:image\/[a-z]+;base64,[A-Za-z0-9+/=]+/g) ?? [];
    expect(images).toHaveLength(1);
    expect(imageHeader(decodeDataUrl(images[0] as string).data)).toMatchObject({ width: 640, height: 360 });
  }, 90_000);
});
