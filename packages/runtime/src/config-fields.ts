import { homedir } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";
import { expandHome, expandHomeInCommand } from "./home-path.ts";

// Field types that accept both YAML values and the strings environment variables carry.

export const port = (fallback: number) =>
  z.coerce
    .number({ error: "must be a port number" })
    .int("must be a whole number")
    .min(0, "must be 0-65535")
    .max(65535, "must be 0-65535")
    .default(fallback);

export const seconds = (fallback: number) =>
  z.coerce
    .number({ error: "must be a number of seconds" })
    .positive("must be greater than 0")
    .default(fallback);

export const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .positive()
    .default(fallback);

/** A list of `item`s: a YAML sequence, or a comma-separated string from the environment. */
const listOf = <T extends z.ZodType>(item: T, error: string) =>
  z
    .preprocess(
      (value) =>
        typeof value === "string"
          ? value
              .split(",")
              .map((part) => part.trim())
              .filter(Boolean)
          : value,
      z.array(item, { error }),
    )
    .default([]);

export const stringList = () =>
  listOf(z.string().min(1), "must be a list (comma-separated in the environment)");

export const logLevel = () =>
  z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
      error: "must be one of fatal, error, warn, info, debug, trace, silent",
    })
    .default("info");

/** How log lines look: `auto` is human-readable on a terminal and JSON anywhere else (a pipe, a file). */
export const logFormat = () =>
  z.enum(["auto", "pretty", "json"], { error: "must be one of auto, pretty, json" }).default("auto");

export interface HomeOptions {
  /** The home directory `~` and `$HOME` stand for; the user's own by default. */
  home?: () => string;
}

/**
 * A file or directory: `~` and `$HOME` at the start are expanded (see home-path.ts), then the path
 * is made absolute, so the value checked, logged and used is the same one.
 */
export const pathField = ({ home = homedir }: HomeOptions = {}) =>
  z
    .string({ error: "must be a path" })
    .min(1, "must be a path")
    .transform((path) => resolve(expandHome(path, home())));

/** Paths, each as pathField takes one: a YAML list or comma-separated. */
export const pathList = (options: HomeOptions = {}) =>
  listOf(pathField(options), "must be a list of paths (comma-separated in the environment)");

/** A program to run: a bare name is looked up on PATH; `~/bin/claude` has its home expanded. */
export const commandField = (fallback: string, { home = homedir }: HomeOptions = {}) =>
  z
    .string({ error: "must be a command" })
    .min(1, "must be a command")
    .transform((command) => expandHomeInCommand(command, home()))
    .default(fallback);

export const nonEmpty = (what: string) => z.string({ error: `must be ${what}` }).min(1, `must be ${what}`);

/** An OpenAI-compatible endpoint (OpenAI, GLM, DeepSeek, a local server…); host and router share these keys. */
export const openAiFields = {
  OPENAI_BASE_URL: z.string().url("must be a URL, e.g. https://open.bigmodel.cn/api/paas/v4/").optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_MODEL: z.string().min(1).default("gpt-4o-mini"),
};
