import { readdirSync } from "node:fs";

import {
  type ChatRequest,
  createTestLogger,
  decodeDataUrl,
  type FakeOpenAI,
  type FakeRouter,
  hasImagePart,
  imageFixture,
  imageHeader,
  makeTempDir,
  startFakeOpenAI,
  startFakeRouter,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostConfigSchema } from "../src/config/host-config.ts";
import { createHost, type Host } from "../src/create-host.ts";
import { IMAGE_ONLY_PROMPT } from "../src/images/image-intake.ts";

// Photos and image files a user sends, through a real host behind a fake router, to the fake
// model: as image parts beside the caption and the file's path when the model reads images, by
// path alone when it does not (OPENAI_VISION=auto asks once), scaled to 1,568 px, and a sentence
// for a file that only claims to be an image.

const SECRET = "images-secret";
const b64 = (data: Buffer | string) => Buffer.from(data).toString("base64");

interface World {
  router: FakeRouter;
  model: FakeOpenAI;
  host: Host;
  dir: { path: string; remove: () => void };
  /** Sends a message with attachments; resolves with the answer and the progress lines. */
  send(
    text: string,
    attachments: Array<{ name: string; mime_type?: string; data_base64: string }>,
  ): Promise<{ answer: string; progress: string[] }>;
}

let counter = 0;

async function world(modelOptions: { vision?: boolean } = {}, config: Record<string, unknown> = {}) {
  const dir = makeTempDir();
  const router = await startFakeRouter({ secret: SECRET });
  const model = await startFakeOpenAI(modelOptions);
  const host = createHost(
    HostConfigSchema.parse({
      ROUTER_URL: router.url,
      ROUTER_SECRET: SECRET,
      NODE_ID: "laptop",
      WORKING_DIR: dir.path,
      DATA_DIR: dir.path,
      RECONNECT_MAX_DELAY_S: 0.2,
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: model.url,
      OPENAI_MAX_RETRIES: 0,
      ...config,
    }),
    { logger: createTestLogger().logger },
  );
  host.start();
  await host.ready();
  const send: World["send"] = async (text, attachments) => {
    const id = `img${++counter}`;
    const link = router.latest();
    const from = link.inbox.frames.length;
    link.send({
      type: "forward",
      id,
      user_id: "ann",
      chat_id: "c1",
      platform: "telegram",
      text,
      attachments,
    });
    const answer = await link.inbox.next("forward_response", (f) => f.id === id, 15_000);
    const progress = link.inbox.frames
      .slice(from)
      .filter((f) => f.type === "progress" && f.id === id)
      .map((f) => String(f.text));
    return { answer: String(answer.text), progress };
  };
  const stop = async () => {
    await host.stop();
    await router.close();
    await model.close();
    dir.remove();
  };
  return { world: { router, model, host, dir, send } satisfies World, stop };
}

/** The requests of real turns (those offering tools), not the vision probe. */
const turns = (model: FakeOpenAI) => model.requests.filter((r) => (r.tools?.length ?? 0) > 0);
const probes = (model: FakeOpenAI) => model.requests.filter((r) => !r.tools?.length && hasImagePart(r));
const lastTurn = (model: FakeOpenAI) => turns(model).at(-1) as ChatRequest;

describe("a model that reads images (OPENAI_VISION=auto)", () => {
  let w: World;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ world: w, stop } = await world());
  });
  afterAll(() => stop());

  it("a screenshot with a caption: one image part, the caption and the file's path; asked once", async () => {
    const { answer } = await w.send("what does this error mean?", [
      { name: "../../shot.png", mime_type: "image/png", data_base64: b64(imageFixture("screenshot.png")) },
    ]);
    expect(answer).toContain("fake-model: what does this error mean?");
    const request = lastTurn(w.model);
    const [url] = w.model.imageUrls(request);
    const image = decodeDataUrl(url as string);
    expect(image.mimeType).toBe("image/png");
    expect(imageHeader(image.data)).toEqual({ format: "png", width: 640, height: 360 });
    // The file's name was the sender's: saved inside the chat's attachments/, under its base name.
    const text = w.model.lastUserText(request);
    expect(text).toMatch(/^what does this error mean\?\n\[attached: \/.*\/attachments\/shot\.png \(/);
    expect(readdirSync(w.dir.path)).not.toContain("shot.png");
    expect(probes(w.model)).toHaveLength(1);

    // The next turn: the probe is not repeated, and the history holds the text, not the image.
    await w.send("and now?", []);
    const next = lastTurn(w.model);
    expect(hasImagePart({ ...next, messages: next.messages.slice(0, -1) })).toBe(false);
    expect(JSON.stringify(next.messages)).toContain("what does this error mean?");
    expect(probes(w.model)).toHaveLength(1);
  });

  it("a 4000×3000 photo arrives scaled to 1,568 px on the long side; no caption → the image-only prompt", async () => {
    await w.send("", [{ name: "IMG_0001.jpg", data_base64: b64(imageFixture("large-photo.jpg")) }]);
    const request = lastTurn(w.model);
    const image = decodeDataUrl(w.model.imageUrls(request)[0] as string);
    expect(image.mimeType).toBe("image/jpeg");
    expect(imageHeader(image.data)).toEqual({ format: "jpeg", width: 1568, height: 1176 });
    expect(w.model.lastUserText(request).startsWith(IMAGE_ONLY_PROMPT)).toBe(true);
  });

  it("files that only claim to be images (HTML, SVG, a zip, a decompression bomb) get a sentence, not a crash", async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="file:///etc/passwd"/></svg>';
    const { answer, progress } = await w.send("look", [
      { name: "page.png", mime_type: "image/png", data_base64: b64("<html><body>hi</body></html>") },
      { name: "logo.png", mime_type: "image/png", data_base64: b64(svg) },
      { name: "photo.jpg", mime_type: "image/jpeg", data_base64: b64(Buffer.from("PK\x03\x04zipzipzip")) },
      { name: "bomb.png", mime_type: "image/png", data_base64: b64(pngHeaderClaiming(100_000, 100_000)) },
    ]);
    expect(answer).toContain("fake-model: look");
    expect(w.model.imageUrls(lastTurn(w.model))).toEqual([]);
    const refused = progress.filter((line) => line.startsWith("⚠️ I could not look at"));
    expect(refused).toEqual([
      "⚠️ I could not look at page.png: it is not an image this host can read.",
      "⚠️ I could not look at logo.png: it is not a photo or picture (svg).",
      "⚠️ I could not look at photo.jpg: it is not an image this host can read.",
      // Refused from the header, before a pixel is decoded (sharp's limitInputPixels).
      "⚠️ I could not look at bomb.png: it has too many pixels to read.",
    ]);
    // The model is told too, and still has each file's path.
    const text = w.model.lastUserText(lastTurn(w.model));
    expect(text).toContain("[⚠️ I could not look at bomb.png");
    expect(text.match(/\[attached: /g)).toHaveLength(4);
    // The host is still up.
    expect((await w.send("still there?", [])).answer).toContain("still there?");
  });
});

describe("a model that refuses image parts (OPENAI_VISION=auto)", () => {
  let w: World;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ world: w, stop } = await world({ vision: false }));
  });
  afterAll(() => stop());

  it("is asked once, then gets the path alone, across turns and a restart of the host on the same state", async () => {
    const screenshot = {
      name: "shot.png",
      mime_type: "image/png",
      data_base64: b64(imageFixture("screenshot.png")),
    };
    const first = await w.send("what is this?", [screenshot]);
    const second = await w.send("and this?", [screenshot]);
    expect(first.answer).toContain("fake-model: what is this?");
    expect(second.answer).toContain("fake-model: and this?");
    expect(probes(w.model)).toHaveLength(1);
    for (const request of turns(w.model)) expect(hasImagePart(request)).toBe(false);
    expect(w.model.lastUserText(lastTurn(w.model))).toMatch(/^and this\?\n\[attached: \/.*shot-1\.png/);
    expect(first.progress.filter((line) => line.includes("could not look"))).toEqual([]);

    // Remembered in state.db: a host started again on the same DATA_DIR does not ask again.
    await w.host.stop();
    const again = createHost(
      HostConfigSchema.parse({
        ROUTER_URL: w.router.url,
        ROUTER_SECRET: SECRET,
        NODE_ID: "laptop",
        WORKING_DIR: w.dir.path,
        DATA_DIR: w.dir.path,
        OPENAI_API_KEY: "k",
        OPENAI_BASE_URL: w.model.url,
        OPENAI_MAX_RETRIES: 0,
      }),
      { logger: createTestLogger().logger },
    );
    again.start();
    try {
      await again.ready();
      w.host = again;
      await w.send("third?", [screenshot]);
      expect(probes(w.model)).toHaveLength(1);
      expect(hasImagePart(lastTurn(w.model))).toBe(false);
    } finally {
      w.host = again;
    }
  });
});

/** A PNG whose header claims `width`×`height` and whose data is a few bytes: decoded, it would take gigabytes. */
function pngHeaderClaiming(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (data: Buffer) => {
    let c = 0xffffffff;
    for (const byte of data) c = (crcTable[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    const typed = Buffer.concat([Buffer.from(type, "ascii"), body]);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(typed));
    return Buffer.concat([head, typed, tail]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
