/**
 * What a turn's recall may see ("one person, one memory"). A turn from a trusted
 * surface — the web UI, the CLI, the /v1 API (which needs the token or loopback) — recalls from
 * every conversation's trusted events, and with `[memory] recall_untrusted = true` from the
 * untrusted ones as well (quoted with their source and marked untrusted). A turn marked
 * untrusted (a group chat relayed by a bridge, anything that says so) recalls only from its
 * own conversation: a stranger in a group must not be able to ask for the owner's memory.
 * Trust is the turn's, as for tool approval (src/agent/approval.ts).
 */

export type RecallScope =
  /** Only this conversation's events. */
  | { kind: "conversation"; conv: string }
  /** Every conversation's trusted events, and untrusted ones with `includeUntrusted`. */
  | { kind: "person"; includeUntrusted: boolean };

/** The scope of a turn in `conv`, untrusted or not, under the `recall_untrusted` setting. */
export function recallScope(conv: string, untrusted: boolean, recallUntrusted: boolean): RecallScope {
  return untrusted ? { kind: "conversation", conv } : { kind: "person", includeUntrusted: recallUntrusted };
}

/** Whether an event of `conv`, `untrusted` or not, is within `scope`. */
export function inScope(scope: RecallScope, e: { conv: string; untrusted: boolean }): boolean {
  if (scope.kind === "conversation") return e.conv === scope.conv;
  return scope.includeUntrusted || !e.untrusted;
}
