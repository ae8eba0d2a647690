import type { ReceivedFile } from "../contracts/message-handler.ts";
import type { TurnImages } from "../contracts/received-image.ts";
import { looksLikeImage, prepareImages } from "./image-intake.ts";
import type { ImageBounds } from "./prepare-image.ts";
import type { VisionSupport } from "./vision-support.ts";

// The images of a message, for whatever answers it: a coding session takes them whatever the
// assistant's model does (the CLIs have models of their own); the assistant's model only when it
// reads images (OPENAI_VISION), else it gets the file lines alone and nothing is decoded.

export interface ImageInput {
  /** For a coding session. */
  forSession(files: readonly ReceivedFile[]): Promise<TurnImages>;
  /** For the assistant's model: nothing when it does not read images. */
  forModel(files: readonly ReceivedFile[], signal: AbortSignal): Promise<TurnImages>;
}

export const NO_IMAGES: TurnImages = { images: [], refused: [] };

export function createImageInput(bounds: ImageBounds, vision: VisionSupport): ImageInput {
  return {
    forSession: (files) => prepareImages(files, bounds),
    async forModel(files, signal) {
      // No probe for a message whose files are no images.
      if (!files.some(looksLikeImage) || !(await vision.supported(signal))) return NO_IMAGES;
      return prepareImages(files, bounds);
    },
  };
}
