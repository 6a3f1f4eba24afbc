/**
 * The music library: every audio file under the [tools.music] library folders, with its tags
 * read by music-metadata (ID3, Vorbis comments, MP4 atoms, FLAC…), kept in DATA/music/index.json.
 * A file whose tags cannot be read is still indexed, by its file name.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, extname, isAbsolute, join } from "node:path";
import { parseFile } from "music-metadata";
import * as v from "valibot";

const AUDIO = new Set([
  ".mp3",
  ".flac",
  ".ogg",
  ".oga",
  ".opus",
  ".m4a",
  ".aac",
  ".wav",
  ".wma",
  ".aiff",
  ".aif",
  ".mka",
]);
/** Files one scan indexes at most (a library on a huge disk is cut, and the scan says so). */
export const MAX_TRACKS = 100_000;

const Track = v.object({
  id: v.string(),
  path: v.string(),
  title: v.string(),
  artist: v.string(),
  album: v.string(),
  track: v.nullable(v.number()),
  year: v.nullable(v.number()),
  genre: v.string(),
  seconds: v.nullable(v.number()),
  /** No title tag could be read: the title is the file name. */
  untagged: v.optional(v.boolean(), false),
});
export type Track = v.InferOutput<typeof Track>;

export const trackId = (path: string) => createHash("sha256").update(path).digest("hex").slice(0, 10);

export function formatSeconds(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return "?:??";
  const t = Math.round(s);
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, "0")}`;
}

export const describeTrack = (t: Track) =>
  `${t.id} · ${t.artist || "unknown artist"} — ${t.title}${t.album ? ` · ${t.album}${t.track ? ` #${t.track}` : ""}` : ""} · ${formatSeconds(t.seconds)}`;

export class Library {
  tracks: Track[] = [];

  constructor(
    private readonly indexFile: string,
    readonly folders: string[],
  ) {
    if (existsSync(indexFile)) {
      const r = v.safeParse(v.array(Track), JSON.parse(readFileSync(indexFile, "utf8")));
      if (r.success) this.tracks = r.output;
    }
  }

  static foldersOf(library: string[], dataDir: string): string[] {
    return library.map((p) => (isAbsolute(p) ? p : join(dataDir, p)));
  }

  async scan(): Promise<{ found: number; missing: string[]; cut: boolean }> {
    const files: string[] = [];
    const missing: string[] = [];
    let cut = false;
    const walk = (dir: string, depth: number) => {
      if (depth > 20 || cut) return;
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.name.startsWith(".")) continue;
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p, depth + 1);
        else if (e.isFile() && AUDIO.has(extname(e.name).toLowerCase())) {
          if (files.length >= MAX_TRACKS) {
            cut = true;
            return;
          }
          files.push(p);
        }
      }
    };
    for (const f of this.folders) {
      if (!existsSync(f) || !statSync(f).isDirectory()) missing.push(f);
      else walk(f, 0);
    }
    const tracks: Track[] = [];
    for (const path of files.sort()) {
      const name = basename(path, extname(path));
      try {
        const m = await parseFile(path, { duration: true, skipCovers: true });
        const c = m.common;
        tracks.push({
          id: trackId(path),
          path,
          title: c.title?.trim() || name,
          artist: (c.artist ?? c.albumartist ?? "").trim(),
          album: (c.album ?? "").trim(),
          track: c.track.no ?? null,
          year: c.year ?? null,
          genre: (c.genre ?? []).join(", "),
          seconds: m.format.duration ?? null,
          untagged: !c.title?.trim(),
        });
      } catch {
        tracks.push({
          id: trackId(path),
          path,
          title: name,
          artist: "",
          album: "",
          track: null,
          year: null,
          genre: "",
          seconds: null,
          untagged: true,
        });
      }
    }
    this.tracks = tracks.sort(byAlbum);
    mkdirSync(join(this.indexFile, ".."), { recursive: true, mode: 0o700 });
    const tmp = `${this.indexFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.tracks), { mode: 0o600 });
    renameSync(tmp, this.indexFile);
    return { found: tracks.length, missing, cut };
  }

  search(query: string | undefined): Track[] {
    if (!query) return this.tracks;
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return this.tracks.filter((t) => {
      const hay = `${t.title}\n${t.artist}\n${t.album}\n${t.genre}\n${basename(t.path)}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    });
  }

  get(id: string): Track | undefined {
    return this.tracks.find((t) => t.id === id);
  }
}

function byAlbum(a: Track, b: Track): number {
  return (
    a.artist.localeCompare(b.artist) ||
    a.album.localeCompare(b.album) ||
    (a.track ?? 0) - (b.track ?? 0) ||
    a.path.localeCompare(b.path)
  );
}
