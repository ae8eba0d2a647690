import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@phonework/runtime";
import { ensurePrivateDir } from "@phonework/runtime";
import { type FSWatcher, watch } from "chokidar";
import type { createJiti } from "jiti";
import * as zod from "zod";
import { describeZodError, type Tool } from "../contracts/tool.ts";
import { CustomToolExport, toCustomTool } from "./custom-tool.ts";

// The custom tools in the workspace's tools/: each `tools/<name>/index.ts` (or index.js) is
// loaded with jiti, checked, and offered to the model beside the built-in tools. tools/ is
// watched: any change reloads them all (fresh modules, no cache), so an edit takes effect
// without a restart. A tool that fails to load is kept as an entry with its error. jiti is loaded
// with the first tool: a workspace without any never loads it.

export interface CustomToolEntry {
  name: string;
  /** The file it was loaded from, or its directory when there is none. */
  path: string;
  tool?: Tool;
  error?: string;
}

export interface CustomToolsOptions {
  dir: string;
  /** Built-in tool names, which a custom tool may not take. */
  reserved: readonly string[];
  timeoutMs: number;
  /** Handed to each tool's execute() (the workspace directory). */
  workspace: string;
  logger: Logger;
  /** Quiet time after a change before reloading (an editor writes a file in several steps). */
  debounceMs?: number;
}

const INDEX_FILES = ["index.ts", "index.js"];
const CHECK_INTERVAL_MS = 1000;

export class CustomTools {
  private entries: CustomToolEntry[] = [];
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Reloads run one at a time; a change during one asks for another after it. */
  private reloading: Promise<void> = Promise.resolve();
  private readonly reported = new Map<string, string>();
  /** tools/ as it was at the last load: each file's name, size and modification time. */
  private loadedStamp = "";
  /** When checkSoon last looked: a turn reads the tool list several times, tools/ is stat'ed once. */
  private checkedAt = 0;

  constructor(private readonly options: CustomToolsOptions) {}

  /** The tools that loaded, in name order. */
  tools(): Tool[] {
    return this.entries.flatMap((entry) => entry.tool ?? []);
  }

  /** Every tool directory, loaded or not. */
  list(): readonly CustomToolEntry[] {
    return this.entries;
  }

  /** Watches tools/ and loads what is there once the watcher is ready (so no write falls between). */
  start(): void {
    ensurePrivateDir(this.options.dir); // DATA_DIR stays owner-only
    this.watcher = watch(this.options.dir, {
      ignoreInitial: true,
      depth: 3,
      ignored: (path) => path.includes("node_modules"),
    });
    this.watcher.on("ready", () => this.schedule());
    this.watcher.on("all", () => this.schedule());
    this.watcher.on("error", (error) =>
      this.options.logger.warn({ err: error }, "watching custom tools failed"),
    );
  }

  /**
   * Reloads now when tools/ changed since the last load and no reload caught it (the watcher can
   * miss a write into a directory it has only just started watching). Cheap: one stat per file.
   */
  async current(): Promise<void> {
    await this.reloading;
    if (this.watcher && !this.closed && this.stamp() !== this.loadedStamp) await this.reload();
  }

  /** current(), at most once a second and without waiting: for the tool list a turn reads. */
  checkSoon(now = Date.now()): void {
    if (now - this.checkedAt < CHECK_INTERVAL_MS) return;
    this.checkedAt = now;
    void this.current();
  }

  /** Loads every tool again now (start() does it on changes). */
  reload(): Promise<void> {
    this.reloading = this.reloading
      .then(() => this.load())
      .catch((error) => this.options.logger.warn({ err: error }, "reloading custom tools failed"));
    return this.reloading;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.watcher?.close();
    await this.reloading;
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reload(), this.options.debounceMs ?? 100);
  }

  private async load(): Promise<void> {
    const entries: CustomToolEntry[] = [];
    this.loadedStamp = this.stamp();
    const dirs = this.toolDirs();
    if (dirs.length > 0) {
      // A fresh loader each time, without a module cache: an edited file, or a file it imports, is read anew.
      const jiti = (await import("jiti")).createJiti(import.meta.url, {
        moduleCache: false,
        fsCache: false,
        // A tool that imports "zod" gets the host's own, installed or bundled: its schemas are then
        // the host's kind, and the tools directory needs no node_modules.
        virtualModules: { zod },
      });
      for (const name of dirs) entries.push(await this.loadOne(jiti, name));
    }
    this.entries = entries;
    this.report(entries);
  }

  private stamp(): string {
    return this.toolDirs()
      .flatMap((name) => {
        const dir = join(this.options.dir, name);
        try {
          return readdirSync(dir).map((file) => {
            const stat = statSync(join(dir, file));
            return `${name}/${file}:${stat.size}:${stat.mtimeMs}`;
          });
        } catch {
          return [`${name}:gone`];
        }
      })
      .join("\n");
  }

  private toolDirs(): string[] {
    try {
      return readdirSync(this.options.dir)
        .filter((name) => !name.startsWith(".") && statSync(join(this.options.dir, name)).isDirectory())
        .sort();
    } catch {
      return [];
    }
  }

  private async loadOne(jiti: ReturnType<typeof createJiti>, dirName: string): Promise<CustomToolEntry> {
    const dir = join(this.options.dir, dirName);
    const file = INDEX_FILES.map((index) => join(dir, index)).find((path) => existsSync(path));
    if (!file) return { name: dirName, path: dir, error: `no ${INDEX_FILES.join(" or ")}` };
    const failed = (error: string): CustomToolEntry => ({ name: dirName, path: file, error });
    let exported: unknown;
    try {
      exported = await jiti.import(file, { default: true });
    } catch (error) {
      // On one line: it is shown in a chat message.
      const message = String((error as Error)?.message ?? error)
        .replace(/\s+/g, " ")
        .trim();
      return failed(`cannot load: ${message}`);
    }
    const parsed = CustomToolExport.safeParse(exported);
    if (!parsed.success) return failed(`bad default export: ${describeZodError(parsed.error)}`);
    const { name } = parsed.data;
    if (name !== dirName) return failed(`name "${name}" does not match its directory "${dirName}"`);
    if (this.options.reserved.includes(name)) return failed(`"${name}" is a built-in tool's name`);
    try {
      const tool = toCustomTool(parsed.data, {
        timeoutMs: this.options.timeoutMs,
        workspace: this.options.workspace,
        logger: this.options.logger,
      });
      return { name, path: file, tool };
    } catch (error) {
      return failed(`bad parameters: ${(error as Error).message}`);
    }
  }

  /** Logs what changed: a tool loaded, or an error not logged before for that tool. */
  private report(entries: CustomToolEntry[]): void {
    const { logger } = this.options;
    const seen = new Set<string>();
    for (const entry of entries) {
      seen.add(entry.name);
      const state = entry.error ?? `ok ${entry.path}`;
      if (this.reported.get(entry.name) === state) continue;
      this.reported.set(entry.name, state);
      if (entry.error)
        logger.warn({ tool: entry.name, path: entry.path, error: entry.error }, "custom tool not loaded");
      else logger.info({ tool: entry.name, path: entry.path }, "custom tool loaded");
    }
    for (const name of this.reported.keys()) if (!seen.has(name)) this.reported.delete(name);
  }
}
