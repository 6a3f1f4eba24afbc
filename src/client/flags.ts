/**
 * Go-style flags, as the original's command line had them: `-name value`, `-name=value`, and
 * the same with `--`; boolean flags take no value (`-json`, or `-json=false`). Parsing stops
 * at the first argument that is not a flag, or after `--` — unless `anywhere` is set: then flags
 * are taken wherever they stand (`homed chat hello -conv x`) and only `--` ends them. An unknown
 * flag or a missing value is a HomedError("usage"), which the command line turns into usage on
 * stderr and exit 2: a flag is parsed or refused, never silently taken as an argument.
 */
import { HomedError } from "../protocol/errors.ts";

export interface FlagSpec {
  name: string;
  kind: "string" | "bool";
  /** Placeholder shown in usage, e.g. DIR. */
  arg?: string;
  usage: string;
}

export interface ParsedFlags {
  values: Record<string, string | boolean>;
  rest: string[];
}

export function parseFlags(
  args: readonly string[],
  specs: readonly FlagSpec[],
  opts: { anywhere?: boolean } = {},
): ParsedFlags {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const values: Record<string, string | boolean> = {};
  const positional: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      if (!opts.anywhere) break;
      positional.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const name = eq === -1 ? body : body.slice(0, eq);
    const spec = byName.get(name);
    if (name === "h" || name === "help") throw new HomedError("usage", "help requested", { help: true });
    if (!spec) throw new HomedError("usage", `flag provided but not defined: -${name}`);
    if (spec.kind === "bool") {
      if (eq === -1) values[name] = true;
      else {
        const text = body.slice(eq + 1);
        if (!["true", "false", "1", "0"].includes(text))
          throw new HomedError("usage", `invalid boolean value "${text}" for flag -${name}`);
        values[name] = text === "true" || text === "1";
      }
      continue;
    }
    if (eq !== -1) {
      values[name] = body.slice(eq + 1);
      continue;
    }
    const next = args[i + 1];
    if (next === undefined) throw new HomedError("usage", `flag needs an argument: -${name}`);
    values[name] = next;
    i++;
  }
  return { values, rest: [...positional, ...args.slice(i)] };
}

/** Usage lines for a set of flags, aligned. */
export function formatFlags(specs: readonly FlagSpec[]): string {
  const heads = specs.map((s) => `  -${s.name}${s.arg ? ` ${s.arg}` : ""}`);
  const width = Math.max(0, ...heads.map((h) => h.length)) + 2;
  return specs.map((s, i) => (heads[i] as string).padEnd(width) + s.usage).join("\n");
}
