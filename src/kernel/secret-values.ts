/**
 * Named secrets besides the provider keys: DATA/secrets.json's "values" (0600), e.g. an MCP
 * server's Authorization header (config.toml's header_secrets names them). They are read when
 * needed and never logged; the file's "keys" belong to LlmSettings.
 */
import * as v from "valibot";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { Logger } from "./log.ts";

const SecretsFile = v.object({ values: v.optional(v.record(v.string(), v.string()), {}) });

/** The named values of DATA/secrets.json; a missing or malformed file holds none (said in the log). */
export function readSecretValues(dataDir: string, log: Logger): Record<string, string> {
  const file = join(dataDir, "secrets.json");
  if (!existsSync(file)) return {};
  try {
    const r = v.safeParse(SecretsFile, JSON.parse(readFileSync(file, "utf8")));
    if (r.success) return r.output.values;
    log.warn("secrets.json is malformed; no secret values loaded", { reason: describeIssues(r.issues) });
  } catch (err) {
    log.warn("secrets.json is unreadable; no secret values loaded", { err: (err as Error).message });
  }
  return {};
}
