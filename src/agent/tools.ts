/**
 * Model-callable tools registered by plugins. Each arrives with a JSON Schema (the SDK makes it
 * from a valibot schema); the kernel compiles it once and validates every call's arguments
 * before anything runs, so a bad call goes back to the model as an error it can correct.
 */
import type { ApprovalAnswer } from "../protocol/turn-stream.ts";
import { Ajv, type ValidateFunction } from "ajv";
import { HomedError } from "../protocol/errors.ts";
import type { ExecutionOrigin, RunToolResult, ToolDefinition } from "../protocol/agent.ts";
import type { ToolSpec } from "../llm/types.ts";

/** Who is calling a tool the kernel runs itself. */
export interface LocalToolContext {
  conv: string;
  turn: string | null;
  untrusted: boolean;
  origin: ExecutionOrigin;
  /** How many sub-agents deep the calling turn is (0: a turn a person or job started). */
  depth: number;
  /** The tools the calling turn may use; null: every registered tool. */
  allowed: ReadonlySet<string> | null;
  /** Ask the calling turn's person; undefined when nobody can be asked. */
  ask?: (q: { tool: string; arguments: unknown; callId: string }, signal: AbortSignal) => Promise<ApprovalAnswer>;
  /** The calling turn's cancellation. */
  signal?: AbortSignal;
  /** Tell the calling turn's channel something (a notice in its stream). */
  notice?: (text: string) => void;
  /** Where the untrusted text in the calling turn's view came from, or null (a sub-agent inherits it). */
  tainted?: string | null;
  /** The Agent Skills the calling turn may load (a scene's list); null or absent: every usable one. */
  skills?: ReadonlySet<string> | null;
}

/**
 * A tool the kernel runs in process (memory_search): it passes the same gate as a plugin's —
 * validation, before_toolcall, approval by its risk class, after_toolcall — only the run differs.
 */
export interface LocalTool {
  run(args: unknown, ctx: LocalToolContext): RunToolResult | Promise<RunToolResult>;
  /** Whether its results are indexed for memory; false for results that quote memory itself. */
  remember: boolean;
}

export interface RegisteredTool {
  plugin: string;
  def: ToolDefinition;
  validate: ValidateFunction;
  /** Present for a tool the kernel runs itself. */
  local?: LocalTool;
}

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  /** The tools by name, made again after a change only: every model call asks. */
  private sorted: RegisteredTool[] | null = null;
  /** Counts changes: what is derived from the tools (their index, src/memory/tool-index.ts) is made again when it moves. */
  generation = 0;

  /**
   * Add or replace `plugin`'s tool (`local`: the kernel's own, run in process). A name another
   * plugin holds, or a schema that does not compile, is refused.
   */
  register(plugin: string, def: ToolDefinition, local?: LocalTool): void {
    const existing = this.tools.get(def.name);
    if (existing && existing.plugin !== plugin) {
      throw new HomedError("conflict", `tool ${def.name} is already registered by plugin ${existing.plugin}`);
    }
    // The same tool again (a lazy plugin registering what its manifest declared): nothing changed,
    // and what is derived from the registry (the tools block, the index) stays as it is.
    if (existing && existing.local === local && JSON.stringify(existing.def) === JSON.stringify(def)) return;
    if (def.parameters.type !== undefined && def.parameters.type !== "object") {
      throw new HomedError("invalid_params", `tool ${def.name}: parameters must be an object schema`);
    }
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(def.parameters);
    } catch (err) {
      throw new HomedError("invalid_params", `tool ${def.name}: schema does not compile: ${(err as Error).message}`);
    }
    this.tools.set(def.name, local ? { plugin, def, validate, local } : { plugin, def, validate });
    this.sorted = null;
    this.generation++;
  }

  /** Remove `plugin`'s tools (all, or the named ones); returns how many were removed. */
  unregister(plugin: string, names?: readonly string[]): number {
    let n = 0;
    for (const [name, t] of this.tools) {
      if (t.plugin === plugin && (!names || names.includes(name))) {
        this.tools.delete(name);
        this.sorted = null;
        this.generation++;
        n++;
      }
    }
    return n;
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  list(): RegisteredTool[] {
    this.sorted ??= [...this.tools.values()].sort((a, b) => a.def.name.localeCompare(b.def.name));
    return [...this.sorted];
  }

  /** What the model is told about the tools. */
  specs(): ToolSpec[] {
    return this.list().map((t) => ({ name: t.def.name, description: t.def.description, parameters: t.def.parameters }));
  }

  /** Validation errors in words the model can act on, or null when the arguments are fine. */
  check(tool: RegisteredTool, args: unknown): string | null {
    if (tool.validate(args)) return null;
    return (tool.validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || "(arguments)"} ${e.message ?? "is invalid"}`)
      .join("; ");
  }
}
