/**
 * The code plugin's tool spec (listed in the manifest at build time, so it is offered before the
 * lazy plugin starts). Keep this file free of heavy imports: the build imports it.
 */
import * as v from "valibot";
import type { ToolSpec } from "../sdk/tool-spec.ts";

export const LANGUAGES = ["javascript", "typescript", "python"] as const;

export const TOOLS = {
  code_run: {
    name: "code_run",
    examples: ["run this python script", "calculate this with some code", "test this snippet", "写段代码算一下"],
    description:
      "Run a program in a sandbox: javascript or typescript (Bun runtime) or python (python3, when installed). The workspace is the working directory (/workspace, read-write); the system is read-only, there is no network unless the owner allowed it. Returns stdout, stderr, the exit status and the workspace files the program created, changed or deleted.",
    input: v.strictObject({
      language: v.picklist(LANGUAGES, "must be javascript, typescript or python"),
      code: v.pipe(v.string(), v.minLength(1, "must not be empty"), v.maxLength(1_000_000)),
      timeout_ms: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.description("Time limit in ms; at most [tools.sandbox] timeout_ms (the default)."),
        ),
      ),
    }),
    risk: "exec",
    untrustedOutput: true,
  },
} satisfies Record<string, ToolSpec>;
