import type { Logger, SqliteDatabase } from "@phonework/runtime";
import { APIError } from "openai/error";
import type { ModelClient } from "../model/model-client.ts";

// Whether the assistant's model reads images (OPENAI_VISION). `on` and `off` are the owner's word;
// `auto` asks the model once, with a 16×16 white PNG: an answer means yes, a 4xx (the usual way an
// endpoint refuses image parts) means no, and either is remembered in state.db for that model at
// that base URL, so the probe is not repeated after a restart. A network error or 5xx answers
// nothing: that turn goes by path, and the next image asks again. Concurrent asks share one probe.

export const MODEL_VISION_MIGRATION = `
CREATE TABLE model_vision (
  base_url TEXT NOT NULL,
  model TEXT NOT NULL,
  vision INTEGER NOT NULL,
  checked_at INTEGER NOT NULL,
  PRIMARY KEY (base_url, model)
) WITHOUT ROWID;
`;

export type VisionMode = "auto" | "on" | "off";

export interface VisionSupport {
  /** Whether image parts go to the model now; asks it first under `auto` when not yet known. */
  supported(signal: AbortSignal): Promise<boolean>;
}

export interface VisionSupportOptions {
  mode: VisionMode;
  model: ModelClient | undefined;
  /** Where the answer is kept: the endpoint and model it is about. */
  baseUrl: string;
  modelName: string;
  db: SqliteDatabase;
  now: () => number;
  logger: Logger;
}

const PROBE_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAFElEQVQoz2P4TyJgGNUwqmH4agAAr639H5UeHUkAAAAASUVORK5CYII=";

export function createVisionSupport(options: VisionSupportOptions): VisionSupport {
  const { db, baseUrl, modelName, logger } = options;
  const read = db.prepare<[string, string], { vision: number }>(
    "SELECT vision FROM model_vision WHERE base_url = ? AND model = ?",
  );
  const write = db.prepare<[string, string, number, number]>(
    "INSERT OR REPLACE INTO model_vision (base_url, model, vision, checked_at) VALUES (?, ?, ?, ?)",
  );
  let probing: Promise<boolean | undefined> | undefined;

  const probe = async (model: ModelClient, signal: AbortSignal): Promise<boolean | undefined> => {
    try {
      await model.complete({
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What colour is this image? One word." },
              { type: "image_url", image_url: { url: `data:image/png;base64,${PROBE_PNG}` } },
            ],
          },
        ],
        tools: [],
        signal,
      });
      return true;
    } catch (error) {
      if (
        error instanceof APIError &&
        error.status !== undefined &&
        error.status >= 400 &&
        error.status < 500
      ) {
        // 401/403/429 say nothing about images: the next image asks again.
        if ([401, 403, 429].includes(error.status)) return undefined;
        return false;
      }
      return undefined;
    }
  };

  return {
    async supported(signal) {
      if (options.mode !== "auto") return options.mode === "on" && options.model !== undefined;
      const model = options.model;
      if (!model) return false;
      const known = read.get(baseUrl, modelName);
      if (known) return known.vision === 1;
      probing ??= probe(model, signal).finally(() => {
        probing = undefined;
      });
      const answer = await probing;
      if (answer === undefined) return false;
      write.run(baseUrl, modelName, answer ? 1 : 0, options.now());
      logger.info({ model: modelName, vision: answer }, "asked the model whether it reads images");
      return answer;
    },
  };
}
