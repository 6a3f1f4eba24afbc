/**
 * What the block-vector tests (images, audio) read back: the rows of `block_vectors`, and event
 * ids ranked by a score map; and an Ogg Opus clip made by the real ffmpeg from a WAV (what a QQ
 * voice message or a phone's recording is like).
 */
import { expect } from "bun:test";
import type { Store } from "../../src/store/store.ts";

export interface VectorRow {
  block_id: number;
  embedder: string;
  dim: number;
  has: number;
}

/** Every row of block_vectors, by block and embedder; `has` is 0 for "tried, no vector". */
export const vectorRows = (store: Store): VectorRow[] =>
  store.db
    .query<VectorRow, []>(
      "SELECT block_id, embedder, dim, vec IS NOT NULL AS has FROM block_vectors ORDER BY block_id, embedder",
    )
    .all();

/** The ids of a score map, best first. */
export const ranked = (m: Map<number, number>): number[] => [...m].sort((a, b) => b[1] - a[1]).map(([id]) => id);

/** `wav` as Ogg Opus through ffmpeg (the test fails if ffmpeg does). */
export async function opusOf(wav: Uint8Array): Promise<Uint8Array> {
  const p = Bun.spawn(
    ["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", "pipe:0", "-c:a", "libopus", "-f", "ogg", "pipe:1"],
    { stdin: new Blob([wav]), stdout: "pipe" },
  );
  const out = new Uint8Array(await new Response(p.stdout).arrayBuffer());
  expect(await p.exited).toBe(0);
  return out;
}
