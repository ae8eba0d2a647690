import { join } from "node:path";
import { type LogRotation, openLogFile } from "./log-file.ts";
import { chooseFormat, type LogFormat, logDestination, prettyLines } from "./log-format.ts";
import { createLogger, type Level, type Logger } from "./logger.ts";
import type { SecretValues } from "./secret-values.ts";

// Where a program's one logger writes. A service or a host: stderr. A program whose terminal is
// the chat: the whole log to a file, so the terminal shows the chat and, from the log, only what
// needs a person (warnings and errors).

export interface ProgramLogOptions {
  /** pino's `name`, and the log file's: `<dataDir>/logs/<name>.log`. */
  name: string;
  level: string;
  format: LogFormat;
  secrets: SecretValues;
  /** Where stderr's share goes; the process's stderr by default (tests pass a stream). */
  stderr?: number | NodeJS.WritableStream;
  /** The terminal is the chat: log to a file under this DATA_DIR. */
  file?: {
    dataDir: string;
    /** The least level stderr still gets; warn by default. */
    stderrLevel?: Level;
    rotation?: LogRotation;
  };
}

export interface ProgramLog {
  logger: Logger;
  /** The log file people should read, when the log goes to one. */
  file: string | undefined;
}

export async function openProgramLog(options: ProgramLogOptions): Promise<ProgramLog> {
  const { name, level, format, secrets } = options;
  const stderr = options.stderr ?? 2;
  if (!options.file) {
    return { logger: createLogger({ name, level, secrets, destination: stderr, format }), file: undefined };
  }
  let logger: Logger | undefined;
  let failed = false;
  const file = await openLogFile(join(options.file.dataDir, "logs"), name, {
    ...(options.file.rotation ? { rotation: options.file.rotation } : {}),
    // Said once, on stderr too (an error), and not from inside the failing write.
    onError: (error) => {
      if (failed) return;
      failed = true;
      setImmediate(() => logger?.error({ err: error, file: file.path }, "cannot write the log file"));
    },
  });
  // A file is never a terminal: JSON unless LOG_FORMAT=pretty asks for text, without colours.
  const fileLines =
    chooseFormat(format, false) === "pretty" ? prettyLines(file.stream, { colorize: false }) : file.stream;
  const stderrLevel = options.file.stderrLevel ?? "warn";
  logger = createLogger({
    name,
    level,
    secrets,
    streams: [
      // The logger's own level decides what reaches the file (and SIGHUP can change it).
      { level: "trace", stream: fileLines },
      { level: stderrLevel, stream: logDestination(stderr, format) },
    ],
  });
  logger.info({ file: file.path, stderrLevel }, `logging to ${file.path}`);
  return { logger, file: file.path };
}
