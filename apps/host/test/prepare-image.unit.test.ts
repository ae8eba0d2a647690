import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { imageFixture, imageHeader, makeTempDir } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { looksLikeImage } from "../src/images/image-intake.ts";
import { DEFAULT_MAX_PIXELS, DEFAULT_MAX_SIDE, prepareImage } from "../src/images/prepare-image.ts";

// An image made ready for a model: scaled, re-encoded smaller until it fits the byte bound, or a
// reason when it cannot be.

const dir = makeTempDir();
afterAll(() => dir.remove());
const saved = (name: string, data: Buffer | string) => {
  const path = join(dir.path, name);
  writeFileSync(path, data);
  return path;
};
const bounds = { maxSide: DEFAULT_MAX_SIDE, maxBytes: 3_750_000, maxPixels: DEFAULT_MAX_PIXELS };

describe("prepareImage", () => {
  it("a PNG over the byte bound goes as a smaller JPEG; one that cannot fit even small gets a reason", async () => {
    const path = saved("shot.png", imageFixture("screenshot.png"));
    const small = await prepareImage(path, { ...bounds, maxBytes: 4_000 });
    if (!small.ok) throw new Error(small.reason);
    expect(small.image.mimeType).toBe("image/jpeg");
    expect(Buffer.from(small.image.base64, "base64").length).toBeLessThanOrEqual(4_000);
    expect(imageHeader(Buffer.from(small.image.base64, "base64"))?.format).toBe("jpeg");
    expect(await prepareImage(path, { ...bounds, maxBytes: 100 })).toEqual({
      ok: false,
      reason: "it is still over 100 B after scaling",
    });
  });

  it("pixels are bounded from the header; a missing file is a reason, not a throw", async () => {
    const path = saved("big.jpg", imageFixture("large-photo.jpg"));
    expect(await prepareImage(path, { ...bounds, maxPixels: 1_000_000 })).toEqual({
      ok: false,
      reason: "it has too many pixels to read",
    });
    const missing = await prepareImage(join(dir.path, "nope.png"), bounds);
    expect(missing.ok).toBe(false);
  });

  it("what counts as an image: the platform's type or the name; the bytes decide later", () => {
    expect(looksLikeImage({ path: "/x", name: "a.bin", mimeType: "image/png" })).toBe(true);
    expect(looksLikeImage({ path: "/x", name: "IMG_1.HEIC" })).toBe(true);
    expect(looksLikeImage({ path: "/x", name: "report.pdf", mimeType: "application/pdf" })).toBe(false);
    expect(looksLikeImage({ path: "/x", name: "notes.txt" })).toBe(false);
  });
});
