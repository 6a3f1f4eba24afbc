/**
 * The approval policy every tool call passes (foreground, background, scheduled alike).
 *
 * Order: a `deny` rule wins; untrusted input may not call anything in `untrusted_deny`; then
 * `allow`, then `ask`, then the tool's own wish (`approval: "ask"`), then its risk class: a
 * `read` tool runs unasked unless `default` is "deny"; every other class gets `default`
 * ("ask" as shipped). Patterns are globs on tool names (`*` and `?`) or `risk:<class>`, which
 * matches every tool of that class (e.g. `allow = ["risk:network"]`).
 *
 * The policy only says allow, deny or ask. Whether somebody can be asked is the caller's to
 * know: where nobody can (the /v1 API, schedules, untrusted input) "ask" is a denial by policy.
 */
import { RISK_CLASSES, type RiskClass } from "../protocol/agent.ts";

export type Decision = { kind: "allow" } | { kind: "deny"; reason: string } | { kind: "ask" };

export interface ApprovalConfig {
  default: "allow" | "ask" | "deny";
  timeout_ms: number;
  allow: string[];
  ask: string[];
  deny: string[];
  untrusted_deny: string[];
}

/** What the policy needs to know of a tool. */
export interface ToolTraits {
  name: string;
  risk: RiskClass;
  /** The tool itself asks for a person's approval on every call. */
  wantsApproval: boolean;
}

type Matcher = (t: ToolTraits) => boolean;

function matcher(pattern: string): Matcher {
  const risk = /^risk:(.*)$/.exec(pattern);
  if (risk) {
    const cls = risk[1] as RiskClass;
    // A misspelt class would silently match nothing; config validation rejects it first.
    if (!RISK_CLASSES.includes(cls)) throw new Error(`unknown risk class in pattern ${pattern}`);
    return (t) => t.risk === cls;
  }
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  const re = new RegExp(`^${escaped}$`);
  return (t) => re.test(t.name);
}

/** True when `pattern` is a tool-name glob or `risk:<class>` with a known class. */
export function isPolicyPattern(pattern: string): boolean {
  const risk = /^risk:(.*)$/.exec(pattern);
  return risk ? RISK_CLASSES.includes(risk[1] as RiskClass) : pattern.length > 0;
}

/** Risk classes asked about after untrusted content even when a rule allows them. */
const TAINT_ASKS: ReadonlySet<RiskClass> = new Set(["write", "exec", "secret"]);

export class ApprovalPolicy {
  private readonly allow: Matcher[];
  private readonly ask: Matcher[];
  private readonly deny: Matcher[];
  private readonly untrustedDeny: Matcher[];

  constructor(readonly config: ApprovalConfig) {
    this.allow = config.allow.map(matcher);
    this.ask = config.ask.map(matcher);
    this.deny = config.deny.map(matcher);
    this.untrustedDeny = config.untrusted_deny.map(matcher);
  }

  /**
   * `tainted`: the tool whose untrusted output the turn has read (a web page, say), or null. A
   * tainted turn is held to `untrusted_deny`, and a `write`, `exec` or `secret` tool that `allow`
   * lets run unasked is asked about instead: content from outside never changes files, runs code
   * or touches credentials unseen. `read` and `network` tools the owner allowed keep running
   * (reading on and following links is what browsing is).
   */
  decide(tool: ToolTraits, untrusted: boolean, tainted: string | null = null): Decision {
    const hit = (list: Matcher[]) => list.some((m) => m(tool));
    if (hit(this.deny)) return { kind: "deny", reason: `policy denies ${tool.name}` };
    if (untrusted && hit(this.untrustedDeny))
      return { kind: "deny", reason: `untrusted input may not call ${tool.name}` };
    if (tainted && hit(this.untrustedDeny))
      return {
        kind: "deny",
        reason: `this turn has read untrusted content (from ${tainted}), after which ${tool.name} may not run ([approval] untrusted_deny)`,
      };
    const d = this.decideTrusted(tool, hit);
    if (tainted && d.kind === "allow" && TAINT_ASKS.has(tool.risk)) return { kind: "ask" };
    return d;
  }

  private decideTrusted(tool: ToolTraits, hit: (list: Matcher[]) => boolean): Decision {
    let d: Decision["kind"];
    if (hit(this.allow)) d = "allow";
    else if (hit(this.ask)) d = "ask";
    else if (tool.wantsApproval) d = "ask";
    else if (tool.risk === "read" && this.config.default !== "deny") d = "allow";
    else d = this.config.default;
    if (d === "deny") return { kind: "deny", reason: `policy denies ${tool.name} by default` };
    return { kind: d };
  }
}
