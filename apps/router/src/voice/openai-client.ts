import type OpenAI from "openai";

// The openai SDK client for the STT and TTS endpoints: loaded on first use (the SDK is a dynamic
// import), one attempt per request (speech is best effort, and /retry is the user's to ask).

export interface OpenAiEndpoint {
  baseURL: string;
  apiKey: string | undefined;
  timeoutMs: number;
}

/** A function opening one client for `endpoint`, created on the first call and shared after. */
export function lazyOpenAiClient(endpoint: OpenAiEndpoint): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () =>
    (client ??= import("openai").then(
      ({ default: OpenAI }) =>
        new OpenAI({
          // Local servers take any key; the SDK insists on one.
          apiKey: endpoint.apiKey ?? "none",
          baseURL: endpoint.baseURL,
          maxRetries: 0,
          timeout: endpoint.timeoutMs,
        }),
    ));
}
