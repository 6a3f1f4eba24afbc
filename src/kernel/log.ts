/**
 * The kernel's logger: logfmt lines to stderr and, once the data dir is known, to
 * DATA/logs/homed.log. The file rotates at 16 MiB keeping three old files, so a daemon left
 * running for months on a board cannot fill its disk with logs.
 */
import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { formatLogLine, LOG_LEVELS, type LogFields, type LogLevel } from "../protocol/logfmt.ts";

const ROTATE_BYTES = 16 * 1024 * 1024;
const KEEP_FILES = 3;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Write an already formatted logfmt line (a plugin's) as it is, if `level` passes the filter. */
  raw(line: string, level: LogLevel): void;
  /** A logger that adds `fields` to every line. */
  with(fields: LogFields): Logger;
}

export interface LogSink {
  level: LogLevel;
  /** Path of the log file, or null while only stderr is used. */
  file: string | null;
  fileBytes: number;
}

export function createLogSink(level: LogLevel = "info"): LogSink {
  return { level, file: null, fileBytes: 0 };
}

/** Start writing to DATA/logs/homed.log (created 0700), rotating an oversized file first. */
export function attachLogFile(sink: LogSink, logsDir: string): void {
  mkdirSync(logsDir, { recursive: true, mode: 0o700 });
  const file = join(logsDir, "homed.log");
  sink.file = file;
  sink.fileBytes = existsSync(file) ? statSync(file).size : 0;
  if (sink.fileBytes >= ROTATE_BYTES) rotate(sink);
}

function rotate(sink: LogSink): void {
  if (!sink.file) return;
  for (let i = KEEP_FILES - 1; i >= 1; i--) {
    const from = `${sink.file}.${i}`;
    if (existsSync(from)) renameSync(from, `${sink.file}.${i + 1}`);
  }
  if (existsSync(sink.file)) renameSync(sink.file, `${sink.file}.1`);
  sink.fileBytes = 0;
}

/** File first, then stderr: whoever sees a line on stderr (a readiness check) finds it in the file. */
function write(sink: LogSink, line: string): void {
  if (sink.file) {
    try {
      appendFileSync(sink.file, `${line}\n`, { mode: 0o600 });
      sink.fileBytes += Buffer.byteLength(line) + 1;
      if (sink.fileBytes >= ROTATE_BYTES) rotate(sink);
    } catch (err) {
      // The disk may be full or the dir gone; stderr still gets the line, so carry on.
      process.stderr.write(`${formatLogLine("warn", "log file write failed", { err })}\n`);
      sink.file = null;
    }
  }
  process.stderr.write(`${line}\n`);
}

export function createLogger(sink: LogSink, base: LogFields = {}): Logger {
  const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(sink.level)) return;
    write(sink, formatLogLine(level, msg, { ...base, ...fields }));
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    raw: (line, level) => {
      if (LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(sink.level)) write(sink, line);
    },
    with: (fields) => createLogger(sink, { ...base, ...fields }),
  };
}
