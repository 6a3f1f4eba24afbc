/**
 * A tool's description apart from its code: name, words for the model, argument schema and
 * risk class. A built-in plugin keeps its specs in plugins/<name>/tools.ts (`export const
 * TOOLS`), so the build lists them in the manifest (the tools exist before a lazy plugin runs,
 * and `homed tools list` needs no daemon) and main.ts attaches the code to the same specs.
 */
import type * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import type { RiskClass, ToolDefinition } from "../../src/protocol/agent.ts";

export interface ToolSpec<S extends v.GenericSchema = v.GenericSchema> {
  /** ^[a-zA-Z0-9_-]{1,64}$; built-in tools are <plugin>_<verb>, e.g. files_read. */
  name: string;
  description: string;
  /** The arguments, as a valibot schema; published to the model as JSON Schema. */
  input: S;
  /**
   * What the tool can do (required): "read" (no side effects; may run unasked), "write",
   * "exec", "network" or "secret" (asked about unless the owner allows them).
   */
  risk: RiskClass;
  /** "ask": a person should approve each call unless the policy says otherwise. */
  approval?: "auto" | "ask";
  /**
   * Its results carry content from outside the person's own words (web pages, feeds, files,
   * notes, command output): they carry the untrusted mark, and while they are in what the model
   * is sent no `write`, `exec`, `secret` or sending tool runs without a person's yes. A tool
   * that says neither this nor `ownOutput` is treated as this.
   */
  untrustedOutput?: boolean;
  /**
   * Why its results are the person's own or the daemon's ("says whether the file was written"):
   * only then are they unmarked. Every tool should say one or the other.
   */
  ownOutput?: string;
  /** It sends what the model gives it to someone else: asked about while the conversation is marked. */
  sendsOut?: boolean;
  /**
   * Its code has a `check` that refuses a call before anyone is asked about it (a page on a
   * private address): set here so the kernel knows before a lazy plugin runs.
   */
  checks?: boolean;
  /**
   * A few things a person says when they need this tool, in their words, not the description's
   * ("what's on my plate Friday"): they rank it for a turn's offer, and are never sent to the model.
   */
  examples?: string[];
  /** Offered on every model call (built-in plugins only; ToolDefinition.core). */
  core?: boolean;
}

/** The definition the kernel and the model see. */
export function toolDefinition(spec: ToolSpec): ToolDefinition {
  const parameters = toJsonSchema(spec.input, { errorMode: "ignore" }) as Record<string, unknown>;
  delete parameters.$schema;
  return {
    name: spec.name,
    description: spec.description,
    parameters,
    risk: spec.risk,
    approval: spec.approval ?? "auto",
    ...(spec.untrustedOutput !== undefined ? { untrustedOutput: spec.untrustedOutput } : {}),
    ...(spec.ownOutput !== undefined ? { ownOutput: spec.ownOutput } : {}),
    sendsOut: spec.sendsOut ?? false,
    checks: spec.checks ?? false,
    examples: spec.examples ?? [],
    ...(spec.core ? { core: true } : {}),
  };
}
