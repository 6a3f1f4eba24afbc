/** A plugin's logger: logfmt lines on stderr, which the kernel keeps and shows. */
import { formatLogLine, LOG_LEVELS, type LogFields, type LogLevel } from "../../src/protocol/logfmt.ts";

export interface PluginLogger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function createPluginLogger(plugin: string, level: LogLevel = "info"): PluginLogger & { level: LogLevel } {
  const logger = {
    level,
    debug: (msg: string, fields?: LogFields) => emit("debug", msg, fields),
    info: (msg: string, fields?: LogFields) => emit("info", msg, fields),
    warn: (msg: string, fields?: LogFields) => emit("warn", msg, fields),
    error: (msg: string, fields?: LogFields) => emit("error", msg, fields),
  };
  function emit(lvl: LogLevel, msg: string, fields?: LogFields) {
    if (LOG_LEVELS.indexOf(lvl) < LOG_LEVELS.indexOf(logger.level)) return;
    process.stderr.write(`${formatLogLine(lvl, msg, { plugin, ...fields })}\n`);
  }
  return logger;
}
