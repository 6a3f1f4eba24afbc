/**
 * The log line format of homed and its plugins: `key=value` pairs, one record per line
 * (logfmt). The kernel writes it; plugins write it to stderr, where the kernel reads it back.
 * Values with spaces, quotes, `=` or control characters are quoted with JSON string escaping,
 * so a record never spans two lines whatever it contains.
 */

export type LogLevel = "debug" | "info" | "warn" | "error";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export type LogFields = Record<string, unknown>;

function formatValue(value: unknown): string {
  let text: string;
  if (value instanceof Error) text = value.message;
  else if (typeof value === "string") text = value;
  else if (value === undefined) text = "";
  else if (typeof value === "object" && value !== null) text = JSON.stringify(value) ?? "";
  else text = String(value);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must be quoted
  return text === "" || /[\s"=\\\u0000-\u001f\u007f]/.test(text) ? JSON.stringify(text) : text;
}

function formatKey(key: string): string {
  const clean = key.replace(/[^A-Za-z0-9_.-]/g, "_");
  return clean === "" ? "_" : clean;
}

/** One logfmt line (no trailing newline): `ts=… level=… msg=… k=v …`. */
export function formatLogLine(level: LogLevel, msg: string, fields: LogFields = {}, now = new Date()): string {
  const parts = [`ts=${now.toISOString()}`, `level=${level}`, `msg=${formatValue(msg)}`];
  for (const [key, value] of Object.entries(fields)) {
    parts.push(`${formatKey(key)}=${formatValue(value)}`);
  }
  return parts.join(" ");
}

/** Parse one logfmt line back into its pairs; text that is not logfmt becomes `{msg: line}`. */
export function parseLogLine(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\S*)/gy;
  let pos = 0;
  while (pos < line.length) {
    while (line[pos] === " ") pos++;
    if (pos >= line.length) break;
    re.lastIndex = pos;
    const m = re.exec(line);
    if (!m) return { msg: line };
    const raw = m[2] ?? "";
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        return { msg: line };
      }
    }
    out[m[1] as string] = value;
    pos = re.lastIndex;
  }
  return out;
}
