/**
 * The notes on disk: DATA/notes/<name>.md, one Markdown file per note. Names match without
 * regard to case ([[shopping list]] finds "Shopping list.md"); writes go to a temporary file
 * renamed over the note, so a crash leaves the old text or the new, never half of one.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NOTE_NAME } from "./tools.ts";

export class NoteError extends Error {}

export interface NoteInfo {
  name: string;
  bytes: number;
  mtime: number;
}

/** [[name]] and [[name|label]] links in Markdown text, names as written, each once. */
export function wikiLinks(text: string): string[] {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/\[\[([^\]|\n]{1,120})(?:\|[^\]\n]*)?\]\]/g)) {
    const name = (m[1] as string).trim();
    if (name) out.set(name.toLowerCase(), name);
  }
  return [...out.values()];
}

export class Notebook {
  constructor(
    readonly dir: string,
    private readonly maxBytes: number,
  ) {}

  private ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  /** Every note, newest change first. */
  list(): NoteInfo[] {
    this.ensureDir();
    const out: NoteInfo[] = [];
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith(".md")) continue;
      const name = f.slice(0, -3);
      if (!NOTE_NAME.test(name)) continue;
      const st = statSync(join(this.dir, f));
      if (st.isFile()) out.push({ name, bytes: st.size, mtime: st.mtimeMs });
    }
    return out.sort((a, b) => b.mtime - a.mtime || a.name.localeCompare(b.name));
  }

  /** The stored name of the note called `name` (any case), or null. */
  find(name: string): string | null {
    const want = name.trim().toLowerCase();
    return this.list().find((n) => n.name.toLowerCase() === want)?.name ?? null;
  }

  /** The stored name, or a NoteError naming the closest notes. */
  need(name: string): string {
    const found = this.find(name);
    if (found) return found;
    const all = this.list().map((n) => n.name);
    const words = name.toLowerCase().split(/\s+/);
    const near = all.filter((n) => words.some((w) => n.toLowerCase().includes(w))).slice(0, 5);
    throw new NoteError(
      `there is no note "${name}"` +
        (near.length
          ? `; similar: ${near.join(", ")}`
          : all.length
            ? `; ${all.length} notes exist (notes_list)`
            : "; there are no notes yet"),
    );
  }

  /** The text of a note by its stored name (as list() gives it): no lookup of the folder. */
  readStored(stored: string): string {
    return readFileSync(join(this.dir, `${stored}.md`), "utf8");
  }

  /** Write the note's whole text (creating it when new); returns the stored name. */
  write(name: string, text: string): string {
    const bytes = Buffer.byteLength(text);
    if (bytes > this.maxBytes)
      throw new NoteError(
        `the note would be ${Math.ceil(bytes / 1024)} KiB; a note may be ${this.maxBytes / 1024} KiB ([tools.notes] max_kb)`,
      );
    this.ensureDir();
    const stored = this.find(name) ?? name.trim();
    const file = join(this.dir, `${stored}.md`);
    const tmp = join(this.dir, `.${stored}.${process.pid}.tmp`);
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, file);
    return stored;
  }

  delete(name: string): string {
    const stored = this.need(name);
    unlinkSync(join(this.dir, `${stored}.md`));
    return stored;
  }

  /** Notes whose text links to `name` (any case). */
  backlinks(name: string): string[] {
    const want = name.toLowerCase();
    return this.list()
      .filter((n) => n.name.toLowerCase() !== want)
      .filter((n) => wikiLinks(this.readStored(n.name)).some((l) => l.toLowerCase() === want))
      .map((n) => n.name);
  }
}
