import { decodeDataUrl, imageFixture, imageHeader } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { startAliceWithModel } from "./telegram-e2e-support.ts";

// A photo sent on Telegram, through a real router and host process, reaches the host's model as
// an image part beside its caption: the fake Bot API serves a 4000×3000 camera photo, and the
// model is shown it scaled to 1,568 px on its long side, with the caption and the file's path.

describe("Telegram: a photo with a caption", () => {
  it("reaches the fake model as one scaled image part plus the caption as text, and the answer comes back", async () => {
    const { fake, model, alice, chat } = await startAliceWithModel({ OPENAI_VISION: "on" });
    model.script({ text: "It is a blue wall with a yellow square." });
    const sent = fake.injectPhoto({
      from: alice,
      data: imageFixture("large-photo.jpg"),
      width: 4000,
      height: 3000,
      caption: "what is on this wall?",
    });
    await chat.waitForBot(/^It is a blue wall with a yellow square\.$/, sent.message?.message_id ?? 0);

    const request = model.requests.at(-1);
    const urls = model.imageUrls(request);
    expect(urls).toHaveLength(1);
    const image = decodeDataUrl(urls[0] as string);
    expect(image.mimeType).toBe("image/jpeg");
    expect(imageHeader(image.data)).toEqual({ format: "jpeg", width: 1568, height: 1176 });
    expect(model.lastUserText(request)).toMatch(
      /^what is on this wall\?\n\[attached: \/.*\/attachments\/photo-[^/]+\.jpg \(73 KB\)\]$/,
    );
  });
});
