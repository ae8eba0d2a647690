import type { Logger } from "@phonework/runtime";
import { z } from "zod";
import { defineTool, type Tool, ToolError, toolSpec } from "../contracts/tool.ts";
import { BoundedOutput } from "../os/bounded-output.ts";

// A custom tool: the default export of `tools/<name>/index.ts` (or .js), checked against
// CustomToolExport and turned into a Tool like the built-in ones. Its run is bounded by a
// timeout and the turn's signal (/stop): when either fires the model gets an error result at
// once, even if the tool ignores its signal and never settles.

export const CUSTOM_TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** A result longer than this reaches the model cut in the middle, like a command's output. */
const MAX_RESULT_CHARS = 32_000;

/** What a custom tool's execute() gets beside its arguments. */
export interface CustomToolContext {
  /** Aborted at the tool's timeout or when the user sends /stop. */
  signal: AbortSignal;
  /** The workspace directory (WORKSPACE_DIR). */
  workspace: string;
  log: Logger;
}

type JsonSchema = Record<string, unknown>;

// The host's zod when the tool imports "zod" (the loader hands it over); a copy of zod 4 the
// tool brings itself still has safeParse.
const isZodSchema = (value: unknown): value is z.ZodType =>
  value instanceof z.ZodType ||
  (typeof value === "object" && value !== null && typeof Reflect.get(value, "safeParse") === "function");

const isJsonObjectSchema = (value: unknown): value is JsonSchema =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Reflect.get(value, "type") === "object";

export const CustomToolExport = z.object({
  name: z.string().regex(CUSTOM_TOOL_NAME, "must match /^[a-z][a-z0-9_]{0,63}$/"),
  description: z.string().trim().min(1, "is empty"),
  parameters: z.custom<z.ZodType | JsonSchema>(
    (value) => isZodSchema(value) || isJsonObjectSchema(value),
    'must be a zod schema or a JSON schema with "type": "object"',
  ),
  execute: z.custom<(args: unknown, ctx: CustomToolContext) => unknown>(
    (value) => typeof value === "function",
    "must be a function",
  ),
});
export type CustomToolExport = z.infer<typeof CustomToolExport>;

export interface CustomToolOptions {
  timeoutMs: number;
  workspace: string;
  logger: Logger;
}

function render(result: unknown): string {
  let text: string;
  if (typeof result === "string") text = result;
  else if (result === undefined || result === null) text = "(done, no output)";
  else {
    try {
      text = JSON.stringify(result, null, 2) ?? String(result);
    } catch {
      text = String(result);
    }
  }
  const bounded = new BoundedOutput(MAX_RESULT_CHARS);
  bounded.append(text);
  return bounded.toString();
}

/** A Tool from a checked export; throws when its parameters cannot be shown to the model. */
export function toCustomTool(exported: CustomToolExport, options: CustomToolOptions): Tool {
  const { name, parameters } = exported;
  const log = options.logger.child({ tool: name });
  const zodParameters = isZodSchema(parameters);
  const tool = defineTool({
    name,
    description: exported.description,
    // A JSON schema is passed to the model as is, and only checked to be an object here:
    // validating it fully would need a JSON-schema validator, and the tool can check its own input.
    schema: zodParameters ? parameters : z.record(z.string(), z.unknown()),
    ...(zodParameters ? {} : { parameters: parameters as JsonSchema }),
    execute: async (args, ctx) => {
      const timeoutS = options.timeoutMs / 1000;
      const stopper = new AbortController();
      const timer = setTimeout(
        () => stopper.abort(new ToolError(`${name} timed out after ${timeoutS}s and was aborted`)),
        options.timeoutMs,
      );
      const signal = AbortSignal.any([ctx.signal, stopper.signal]);
      let onAbort = () => {};
      const aborted = new Promise<never>((_resolve, reject) => {
        onAbort = () =>
          reject(signal.reason instanceof ToolError ? signal.reason : new ToolError(`${name} was stopped`));
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        const run = Promise.resolve().then(() =>
          exported.execute(args, { signal, workspace: options.workspace, log }),
        );
        return render(await Promise.race([run, aborted]));
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      }
    },
  });
  // Checked now, once: a schema the model cannot be shown would fail every turn.
  const spec = toolSpec(tool);
  if (spec.function.parameters.type !== "object")
    throw new Error('parameters must describe an object (a z.object(...) or {"type": "object", …})');
  return tool;
}
