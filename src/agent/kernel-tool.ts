/**
 * The definition of a tool the kernel runs itself (memory_search, tools_find, skill, skill_file,
 * agent_spawn): its arguments' valibot schema published as JSON Schema, and the fields every
 * kernel tool shares — the approval policy decides by its risk class, its output is the kernel's
 * own (an untrusted mark travels on the result, not the definition), it sends nothing out and
 * has no pre-check.
 */
import type * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import type { RiskClass, ToolDefinition } from "../protocol/agent.ts";

export function kernelTool(o: {
  name: string;
  description: string;
  args: v.GenericSchema;
  risk: RiskClass;
  examples?: string[];
}): ToolDefinition {
  return {
    name: o.name,
    description: o.description,
    parameters: toJsonSchema(o.args, { errorMode: "ignore" }) as Record<string, unknown>,
    risk: o.risk,
    approval: "auto",
    untrustedOutput: false,
    sendsOut: false,
    checks: false,
    examples: o.examples ?? [],
  };
}
