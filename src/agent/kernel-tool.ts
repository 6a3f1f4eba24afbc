/**
 * The definition of a tool the kernel runs itself (memory_search, tools_find, skill, skill_file,
 * agent_spawn): its arguments' valibot schema published as JSON Schema, and the fields every
 * kernel tool shares — the approval policy decides by its risk class, it sends nothing out and
 * has no pre-check. Each says why its output is the daemon's own (`own`); where a result quotes
 * outside text (memory of a marked conversation, an untrusted skill), the mark travels on it.
 */
import type * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import type { RiskClass, ToolDefinition } from "../protocol/agent.ts";

export function kernelTool(o: {
  name: string;
  description: string;
  args: v.GenericSchema;
  risk: RiskClass;
  /** Why what it returns is the daemon's own (ToolDefinition.ownOutput). */
  own: string;
  examples?: string[];
  /** Offered on every model call (ToolDefinition.core). */
  core?: boolean;
}): ToolDefinition {
  return {
    name: o.name,
    description: o.description,
    parameters: toJsonSchema(o.args, { errorMode: "ignore" }) as Record<string, unknown>,
    risk: o.risk,
    approval: "auto",
    ownOutput: o.own,
    sendsOut: false,
    checks: false,
    examples: o.examples ?? [],
    ...(o.core ? { core: true } : {}),
  };
}
