/**
 * Dense vectors of events, made in the background by an embedder (src/embed) and kept in
 * event_vectors with the embedder's id. Appending an event never waits for its vector: the
 * event is queued and embedded in order; until then it is found by the lexical signals alone.
 * On start, events without a vector for the current embedder are queued too — which is how a
 * changed model re-embeds the past.
 *
 * With a CLIP-style model (embedsImages) and the block store, an event's image blocks are queued
 * after its text and get vectors of their own (src/store/block-vectors.ts); with a CLAP-style
 * model (embedsAudio) its audio blocks do. An event's dense score is the best cosine of its text
 * vector and its blocks' vectors. A bad image or clip is logged once and skipped. Without an
 * image- or audio-capable model no block of that kind is even looked up.
 */
import type { Embedder } from "../embed/embedder.ts";
import { cosine, embedsAudio, embedsImages } from "../embed/embedder.ts";
import { HomedError } from "../protocol/errors.ts";
import { MAX_INDEXED_TEXT_CHARS } from "../protocol/event-bodies.ts";
import type { BlockVectors, PendingBlock, VectorKind } from "../store/block-vectors.ts";
import type { EventVectors } from "../store/event-vectors.ts";
import type { Store } from "../store/store.ts";

export interface DenseLog {
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
}

/** Where block bytes come from (src/store/blocks.ts BlockStore). */
export interface BlockBytes {
  read(sha256: string): Uint8Array | null;
}

type Pending = { id: number; text: string } | PendingBlock;

interface ConvVectors {
  lastId: number;
  vecs: Map<number, Float32Array>;
  lastBlock: number;
  blocks: Map<number, Float32Array[]>;
}

export class DenseIndex {
  private readonly queue: Pending[] = [];
  private draining = false;
  private readonly cache = new Map<string, ConvVectors>();
  private readonly queryCache = new Map<string, Float32Array>();
  /** Block vectors; null without an image- or audio-capable model (or without the block store). */
  private readonly blockVectors: BlockVectors | null;
  private readonly vectors: EventVectors;
  /** Why ffmpeg could not run, once logged (so a missing ffmpeg is one line, not one per clip). */
  private toolMissingLogged = false;
  /** Vectors made since start (for status and tests). */
  made = 0;
  /** Image vectors made since start (reused ones included), and images that could not be embedded. */
  imagesMade = 0;
  imagesFailed = 0;
  /** The same for audio blocks. */
  audioMade = 0;
  audioFailed = 0;

  constructor(
    store: Pick<Store, "eventVectors" | "blockVectors">,
    readonly embedder: Embedder,
    private readonly log: DenseLog,
    private readonly blocks: BlockBytes | null = null,
  ) {
    const kinds: VectorKind[] = [];
    if (embedsImages(embedder)) kinds.push("image");
    if (embedsAudio(embedder)) kinds.push("audio");
    this.vectors = store.eventVectors(embedder.id);
    this.blockVectors = blocks && kinds.length > 0 ? store.blockVectors(embedder.id, kinds) : null;
  }

  /** Queue an event's text, and its image and audio blocks when the model embeds them, for embedding. */
  enqueue(id: number, _conv: string, text: string): void {
    if (text.trim()) this.queue.push({ id, text });
    if (this.blockVectors) this.queue.push(...this.blockVectors.pendingOf(id));
    void this.drain();
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Resolves when everything queued so far has been embedded (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.queue.length > 0 || this.draining) await Bun.sleep(5);
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const p = this.queue.shift() as Pending;
        if ("block" in p) {
          await this.embedBlock(p);
          continue;
        }
        try {
          const [vec] = await this.embedder.embedTexts([p.text.slice(0, MAX_INDEXED_TEXT_CHARS)]);
          if (!vec) continue;
          this.vectors.save(p.id, vec);
          this.made++;
        } catch (err) {
          this.log.warn("embedding failed; the event stays lexical-only", { event: p.id, err });
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * Embed one image or audio block (or reuse the vector of the same bytes). A block the model
   * cannot take (undecodable: invalid_params) or whose bytes are gone (not_found) is marked, so
   * it is never tried — or logged — again for this model; any other failure (ffmpeg missing:
   * unavailable, logged once) is retried next start.
   */
  private async embedBlock(p: PendingBlock): Promise<void> {
    const vectors = this.blockVectors as BlockVectors;
    const image = p.kind === "image";
    try {
      let vec = vectors.known(p.sha256, p.kind);
      if (!vec) {
        const bytes = this.blocks?.read(p.sha256);
        if (!bytes) throw new HomedError("not_found", `block ${p.sha256} is not in the block store`);
        const embed = (image ? this.embedder.embedImages : this.embedder.embedAudio) as (
          b: readonly Uint8Array[],
        ) => Promise<Float32Array[]>;
        vec = (await embed.call(this.embedder, [bytes]))[0] ?? null;
      }
      if (!vec) throw new Error(`the ${p.kind} model returned no vector`);
      vectors.put(p.block, vec);
      if (image) this.imagesMade++;
      else this.audioMade++;
    } catch (err) {
      if (image) this.imagesFailed++;
      else this.audioFailed++;
      const mark = err instanceof HomedError && (err.code === "invalid_params" || err.code === "not_found");
      const missingTool = err instanceof HomedError && err.code === "unavailable";
      if (!missingTool || !this.toolMissingLogged)
        this.log.warn(`${image ? "image" : "audio"} block not embedded; it is found by its text alone`, {
          block: p.block,
          err,
        });
      if (missingTool) this.toolMissingLogged = true;
      if (mark) vectors.put(p.block, null);
    }
  }

  /** Compute (and remember) the vector of a query, so the synchronous scoring that follows can use it. */
  async prepareQuery(text: string): Promise<void> {
    if (this.queryCache.has(text)) return;
    try {
      const [vec] = await this.embedder.embedTexts([text]);
      if (vec) {
        this.queryCache.set(text, vec);
        if (this.queryCache.size > 64) this.queryCache.delete(this.queryCache.keys().next().value as string);
      }
    } catch (err) {
      this.log.warn("query embedding failed; scoring lexically", { err });
    }
  }

  private vectorsOf(conv: string): ConvVectors {
    let c = this.cache.get(conv);
    if (!c) {
      c = { lastId: -1, vecs: new Map(), lastBlock: -1, blocks: new Map() };
      this.cache.set(conv, c);
      if (this.cache.size > 32) this.cache.delete(this.cache.keys().next().value as string);
    }
    const rows = this.vectors.ofConversation(conv, c.lastId);
    for (const r of rows) {
      c.vecs.set(
        r.event_id,
        new Float32Array(r.vec.buffer.slice(r.vec.byteOffset, r.vec.byteOffset + r.vec.byteLength)),
      );
      c.lastId = Math.max(c.lastId, r.event_id);
    }
    if (this.blockVectors) {
      const { byEvent, last } = this.blockVectors.ofConversation(conv, c.lastBlock);
      for (const [id, list] of byEvent) c.blocks.set(id, [...(c.blocks.get(id) ?? []), ...list]);
      c.lastBlock = last;
    }
    return c;
  }

  /**
   * Cosine of the (prepared) query with each of `ids` that has a vector — the best of its text's
   * and its image and audio blocks' — ; null when the query was not prepared (then scoring is lexical only).
   */
  cosines(conv: string, text: string, ids: readonly number[]): Map<number, number> | null {
    const q = this.queryCache.get(text);
    if (!q) return null;
    const { vecs, blocks } = this.vectorsOf(conv);
    const out = new Map<number, number>();
    for (const id of ids) {
      let best = Number.NEGATIVE_INFINITY;
      const v = vecs.get(id);
      if (v && v.length === q.length) best = cosine(q, v);
      for (const bv of blocks.get(id) ?? []) if (bv.length === q.length) best = Math.max(best, cosine(q, bv));
      if (best > Number.NEGATIVE_INFINITY) out.set(id, best);
    }
    return out;
  }

  /** Queue every event of the log that has text but no vector from this embedder. */
  backfill(textOf: (kind: string, body: string) => string | null): number {
    const rows = this.vectors.missing();
    let n = 0;
    for (const r of rows) {
      const text = textOf(r.kind, r.body);
      if (text?.trim()) {
        this.queue.push({ id: r.id, text }); // its blocks come with the backlog below
        n++;
      }
    }
    if (n > 0)
      this.log.info("embedding events that have no vector from this model", { embedder: this.embedder.id, events: n });
    const pending = this.blockVectors?.backlog() ?? [];
    this.queue.push(...pending);
    void this.drain();
    const audio = pending.filter((b) => b.kind === "audio").length;
    if (pending.length > audio)
      this.log.info("embedding image blocks that have no vector from this model", {
        embedder: this.embedder.id,
        images: pending.length - audio,
      });
    if (audio > 0)
      this.log.info("embedding audio blocks that have no vector from this model", {
        embedder: this.embedder.id,
        clips: audio,
      });
    return n;
  }
}
