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
  /**
   * Tools whose output the owner trusts (`[trust] tools`, globs): what they return does not mark
   * the conversation, though the tool says it comes from outside (a folder of the owner's notes).
   */
  trusted_output?: string[];
}

/** What the policy needs to know of a tool. */
export interface ToolTraits {
  name: string;
  risk: RiskClass;
  /** The tool itself asks for a person's approval on every call. */
  wantsApproval: boolean;
  /** It sends what it is given to someone else (ToolDefinition.sendsOut). */
  sendsOut?: boolean;
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

/** Risk classes asked about while untrusted text is in view even when a rule allows them (so are sending tools). */
const TAINT_ASKS: ReadonlySet<RiskClass> = new Set(["write", "exec", "secret"]);

export class ApprovalPolicy {
  private readonly allow: Matcher[];
  private readonly ask: Matcher[];
  private readonly deny: Matcher[];
  private readonly untrustedDeny: Matcher[];
  private readonly trustedOutput: Matcher[];

  constructor(readonly config: ApprovalConfig) {
    this.allow = config.allow.map(matcher);
    this.ask = config.ask.map(matcher);
    this.deny = config.deny.map(matcher);
    this.untrustedDeny = config.untrusted_deny.map(matcher);
    this.trustedOutput = (config.trusted_output ?? []).map(matcher);
  }

  /** Whether the owner trusts what `tool` returns (`[trust] tools`): its output carries no mark. */
  trustsOutput(tool: ToolTraits): boolean {
    return this.trustedOutput.some((m) => m(tool));
  }

  /**
   * `tainted`: where the untrusted text in the model's view came from (a web page, a file, an
   * untrusted channel's message, what the model wrote with one of them in view), or null. A
   * marked turn is held to `untrusted_deny`, and a `write`, `exec`, `secret` or sending tool that
   * `allow` lets run unasked is asked about instead: text from outside never changes files, runs
   * code, touches credentials or sends data out unseen. `read` and other `network` tools the
   * owner allowed keep running (reading on and following links is what browsing is).
   */
  decide(tool: ToolTraits, untrusted: boolean, tainted: string | null = null): Decision {
    const hit = (list: Matcher[]) => list.some((m) => m(tool));
    if (hit(this.deny)) return { kind: "deny", reason: `policy denies ${tool.name}` };
    if (untrusted && hit(this.untrustedDeny))
      return { kind: "deny", reason: `untrusted input may not call ${tool.name}` };
    if (tainted && hit(this.untrustedDeny))
      return {
        kind: "deny",
        reason: `untrusted text is in view (from ${tainted}), and ${tool.name} may not run then ([approval] untrusted_deny)`,
      };
    const d = this.decideTrusted(tool, hit);
    if (tainted && d.kind === "allow" && (TAINT_ASKS.has(tool.risk) || tool.sendsOut)) return { kind: "ask" };
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
