import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  decodeDataUrl,
  imageFixture,
  imageHeader,
  makeTempDir,
  repoRoot,
  startFakeResponses,
  startFakeRouter,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { onCleanup, startHost } from "./support.ts";

// A photo sent to a Codex session: the host hands the real `codex app-server` a `localImage` input
// item (the saved file's path), and Codex sends the image to the (fake) Responses API itself.

const SECRET = "codex-image-secret";
const CODEX_BIN = join(repoRoot, "node_modules", ".bin", "codex");

describe("Codex sessions and images (real codex app-server, fake model)", () => {
  it("a screenshot sent to the session reaches the Responses API as an input image beside the words", async () => {
    const model = await startFakeResponses();
    onCleanup(() => model.close());
    const dir = makeTempDir();
    onCleanup(() => dir.removeWhenQuiet());
    const root = realpathSync(dir.path);
    for (const sub of ["work/demo", "home", "codex-home", "data"])
      mkdirSync(join(root, sub), { recursive: true });
    writeFileSync(join(root, "codex-home", "config.toml"), model.codexConfig());
    const router = await startFakeRouter({ secret: SECRET });
    onCleanup(() => router.close());
    const host = startHost(
      router.url,
      SECRET,
      {
        WORKING_DIR: join(root, "work"),
        DATA_DIR: join(root, "data"),
        CODEX_BIN,
        CODEX_APPROVAL_POLICY: "never",
      },
      {
        env: {
          ...process.env,
          HOME: join(root, "home"),
          CODEX_HOME: join(root, "codex-home"),
          OPENAI_API_KEY: "sk-test",
        },
      },
    );
    await host.ready();
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
