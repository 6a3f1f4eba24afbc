/**
 * The approval policy every tool call passes (foreground, background, scheduled alike).
 *
 * Order: a `deny` rule wins; untrusted input may not call anything in `untrusted_deny`; then
 * `allow`, then `ask`, then the tool's own wish (`approval: "ask"`), then `default`. An answer of
 * "ask" for untrusted input becomes "deny": nobody in a group chat gets to approve a tool on the
 * owner's behalf. Patterns are globs on tool names (`*` and `?`).
 */
export type Decision = { kind: "allow" } | { kind: "deny"; reason: string } | { kind: "ask" };

export interface ApprovalConfig {
  default: "allow" | "ask" | "deny";
  timeout_ms: number;
  allow: string[];
  ask: string[];
  deny: string[];
  untrusted_deny: string[];
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`);
}

export class ApprovalPolicy {
  private readonly allow: RegExp[];
  private readonly ask: RegExp[];
  private readonly deny: RegExp[];
  private readonly untrustedDeny: RegExp[];

  constructor(readonly config: ApprovalConfig) {
    this.allow = config.allow.map(globToRegExp);
    this.ask = config.ask.map(globToRegExp);
    this.deny = config.deny.map(globToRegExp);
    this.untrustedDeny = config.untrusted_deny.map(globToRegExp);
  }

  decide(tool: string, toolWantsApproval: boolean, untrusted: boolean): Decision {
    const hit = (list: RegExp[]) => list.some((r) => r.test(tool));
    if (hit(this.deny)) return { kind: "deny", reason: `policy denies ${tool}` };
    if (untrusted && hit(this.untrustedDeny)) return { kind: "deny", reason: `untrusted input may not call ${tool}` };
    let d: Decision["kind"];
    if (hit(this.allow)) d = "allow";
    else if (hit(this.ask)) d = "ask";
    else if (toolWantsApproval) d = "ask";
    else d = this.config.default;
    if (d === "deny") return { kind: "deny", reason: `policy denies ${tool} by default` };
    if (d === "ask" && untrusted) return { kind: "deny", reason: `${tool} needs a person's approval, and the input is untrusted` };
    return { kind: d };
  }
}
