/**
 * The shapes the store hands out and takes in: events as appended and as stored, and
 * conversations as lists show them.
 */
export interface AppendEvent {
  conv: string;
  kind: string;
  actor: string;
  untrusted?: boolean;
  /**
   * Where the text came from when outside the person's own words, or the untrusted text the
   * model had in view when it wrote this. Absent: trusted, or "untrusted input" when `untrusted`.
   */
  mark?: string | null;
  body: unknown;
  /** Defaults to now. */
  ts?: number;
  /**
   * 2: the event starts in cold memory, gone cold when it was said (`ts`): an imported message
   * (src/memory/import-conversations.ts). Absent: in context (1).
   */
  layer?: 2;
}

export interface StoredEvent {
  id: number;
  ts: number;
  conv: string;
  kind: string;
  actor: string;
  untrusted: boolean;
  /** See AppendEvent.mark; null for trusted text. */
  mark: string | null;
  body: string;
  /** The memory layer the event is in now (1 context, 2 cold, 3 distilled). */
  layer?: number;
}

/** An event as sqlite returns it, with its layer from event_state (absent = L1). */
export interface EventRow {
  id: number;
  ts: number;
  conv: string;
  kind: string;
  actor: string;
  untrusted: number;
  mark: string | null;
  body: string;
  layer: number | null;
}

/** A conversation as lists show it. */
export interface ConversationRow {
  id: string;
  channel: string;
  createdAt: number;
  updatedAt: number;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** Of inputTokens, those read from the provider's prompt cache. */
  cachedInputTokens: number;
  title: string;
  /** The model chosen for this conversation; null: the configured one. */
  model: string | null;
  /** The scene key its channel declared ("" when none). */
  scene: string;
}
