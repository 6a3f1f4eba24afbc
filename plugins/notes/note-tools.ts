/**
 * What the notes tools do: each returns text for the model; a NoteError it throws reaches the
 * model as "error: …" (the SDK answers a thrown error so).
 * Every write sends the note's new text to memory (memory/add, key = the note's name), so
 * memory_search finds notes as it finds conversations.
 */
import type * as v from "valibot";
import { NoteError, type Notebook, wikiLinks } from "./notebook.ts";
import type { TOOLS } from "./tools.ts";

type Args<K extends keyof typeof TOOLS> = v.InferOutput<(typeof TOOLS)[K]["input"]>;

/** How memory is told of a note's text (null: indexing is off). */
export type Remember = ((name: string, text: string, untrusted: boolean) => Promise<void>) | null;

const ago = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

export function noteTools(book: Notebook, remember: Remember) {
  async function saved(name: string, text: string, untrusted: boolean, verb: string): Promise<string> {
    const stored = book.write(name, text);
    let mem = "";
    if (remember) {
      try {
        await remember(stored, text, untrusted);
        mem = "; indexed into memory";
      } catch (err) {
        mem = `; not indexed into memory (${(err as Error).message})`;
      }
    }
    const links = wikiLinks(text);
    const missing = links.filter((l) => !book.find(l));
    return (
      `${verb} note "${stored}" (${Buffer.byteLength(text)} bytes)${mem}.` +
      (links.length ? ` Links: ${links.map((l) => `[[${l}]]`).join(", ")}.` : "") +
      (missing.length ? ` Not written yet: ${missing.join(", ")}.` : "")
    );
  }

  const tools = {
    async create(a: Args<"notes_create">, untrusted: boolean) {
      const exists = book.find(a.name);
      if (exists) throw new NoteError(`a note "${exists}" exists; change it with notes_edit or notes_append`);
      return saved(a.name, a.text, untrusted, "Created");
    },
    read(a: Args<"notes_read">) {
      const name = book.need(a.name);
      const text = book.readStored(name);
      const back = book.backlinks(name);
      const links = wikiLinks(text);
      return `# ${name}\n\n${text}${text.endsWith("\n") ? "" : "\n"}\n---\nlinks to: ${links.join(", ") || "none"}\nlinked from: ${back.join(", ") || "none"}`;
    },
    async edit(a: Args<"notes_edit">, untrusted: boolean) {
      const name = book.need(a.name);
      const old = book.readStored(name);
      let text: string;
      if (a.text !== undefined) {
        if (a.find !== undefined || a.replace !== undefined)
          throw new NoteError("give either text (the whole note) or find and replace, not both");
        text = a.text;
      } else {
        if (a.find === undefined || a.replace === undefined)
          throw new NoteError("give find and replace (or text for the whole note)");
        const n = old.split(a.find).length - 1;
        if (n !== 1)
          throw new NoteError(
            n === 0
              ? `"${a.find.slice(0, 80)}" is not in the note "${name}"; read it with notes_read`
              : `"${a.find.slice(0, 80)}" occurs ${n} times in "${name}"; give more text around it so it occurs once`,
          );
        text = old.replace(a.find, () => a.replace as string);
      }
      return saved(name, text, untrusted, "Changed");
    },
    async append(a: Args<"notes_append">, untrusted: boolean) {
      const name = book.find(a.name);
      const old = name ? book.readStored(name) : "";
      const sep = old === "" || old.endsWith("\n") ? "" : "\n";
      return saved(
        name ?? a.name,
        `${old}${sep}${a.text}${a.text.endsWith("\n") ? "" : "\n"}`,
        untrusted,
        name ? "Appended to" : "Created",
      );
    },
    search(a: Args<"notes_search">) {
      const words = a.query.toLowerCase().split(/\s+/).filter(Boolean);
      const hits: { name: string; score: number; lines: string[] }[] = [];
      for (const n of book.list()) {
        const text = book.readStored(n.name);
        const hay = `${n.name}\n${text}`.toLowerCase();
        if (!words.every((w) => hay.includes(w))) continue;
        const score =
          words.reduce((s, w) => s + hay.split(w).length - 1, 0) +
          (words.some((w) => n.name.toLowerCase().includes(w)) ? 5 : 0);
        const lines = text
          .split("\n")
          .filter((l) => words.some((w) => l.toLowerCase().includes(w)))
          .slice(0, 3)
          .map((l) => `    ${l.trim().slice(0, 200)}`);
        hits.push({ name: n.name, score, lines });
      }
      if (hits.length === 0) return `No note contains ${words.map((w) => `"${w}"`).join(" and ")}.`;
      hits.sort((x, y) => y.score - x.score);
      const shown = hits.slice(0, a.limit ?? 10);
      return `${hits.length} note${hits.length === 1 ? "" : "s"} match:\n${shown.map((h) => `- ${h.name}\n${h.lines.join("\n")}`).join("\n")}`;
    },
    list() {
      const all = book.list();
      if (all.length === 0) return "There are no notes yet (DATA/notes/ is empty).";
      return `${all.length} note${all.length === 1 ? "" : "s"}:\n${all.map((n) => `- ${n.name} · ${n.bytes} bytes · changed ${ago(n.mtime)} UTC`).join("\n")}`;
    },
    links(a: Args<"notes_links">) {
      const name = book.need(a.name);
      const links = wikiLinks(book.readStored(name));
      const out = links.map((l) => (book.find(l) ? `- [[${l}]]` : `- [[${l}]] (no such note yet)`));
      const back = book.backlinks(name);
      return `"${name}" links to ${links.length ? `:\n${out.join("\n")}` : "no notes"}\nBacklinks (notes linking to it): ${back.join(", ") || "none"}`;
    },
    delete(a: Args<"notes_delete">) {
      const name = book.delete(a.name);
      const back = book.backlinks(name);
      return `Deleted note "${name}".${back.length ? ` Still linking to it: ${back.join(", ")}.` : ""} Memory keeps what it had indexed of it.`;
    },
  };

  return tools;
}
