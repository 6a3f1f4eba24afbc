/**
 * Attachments in the composer: pick files (Attach), paste them, drop them on the chat, or record
 * a voice message (Record, MediaRecorder); each is uploaded at once (POST /api/uploads, which types it
 * by its bytes and shapes images) and shown as a preview — a thumbnail, a player, a chip — with ×
 * to take it back. Sending takes what finished uploading. Shown in messages by `attachmentList`.
 */
import { ApiError } from "./api.ts";
import { h } from "./dom.ts";
import type { UploadResult } from "../../../src/protocol/attachments.ts";

/**
 * An attachment as the page knows it: what /api/uploads answered (UploadResult), what a
 * transcript names (channel.ts TranscriptItem's attachments), what a live turn's header names
 * (only the block and the name), or a memory hit's block. Every field but the block is optional
 * because the sources carry different parts.
 */
export interface AttachmentView {
  sha256: string;
  name?: string;
  mime?: string;
  kind?: string;
  bytes?: number;
  note?: string;
}

const MAX_FILES = 8;

const size = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${Math.round(n / 1024)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

const blockUrl = (a: AttachmentView, download = false) =>
  `/api/blocks/${encodeURIComponent(a.sha256)}${download || a.name ? `?name=${encodeURIComponent(a.name ?? a.sha256)}` : ""}`;

/** One attachment in a message: an image opens full size, audio plays, a document downloads. */
export function attachmentView(a: AttachmentView): HTMLElement {
  const label = a.name ?? a.sha256.slice(0, 12);
  if (a.kind === "image")
    return h(
      "a",
      { class: "att att-image", href: blockUrl(a), target: "_blank", rel: "noopener", title: label },
      h("img", { src: blockUrl(a), alt: label, loading: "lazy" }),
    );
  if (a.kind === "audio" || a.kind === "video")
    return h(
      "div",
      { class: `att att-${a.kind}` },
      h(a.kind, { controls: true, preload: "metadata", src: blockUrl(a) }),
      h("span", { class: "att-name" }, label),
    );
  return h(
    "a",
    { class: "att att-file", href: blockUrl(a, true), download: label, title: a.note ?? label },
    h("span", { class: "att-icon" }, fileTag(a)),
    h("span", { class: "att-name" }, label),
    a.bytes !== undefined ? h("span", { class: "att-size" }, size(a.bytes)) : null,
  );
}

/** "PDF", "DOCX", "TXT"…: what a document chip says it is (from its sniffed type). */
function fileTag(a: AttachmentView): string {
  const sub = (a.mime ?? "").split("/")[1] ?? "";
  if (sub.includes("wordprocessingml")) return "DOCX";
  if (sub === "plain") return "TXT";
  if (sub === "markdown") return "MD";
  return (sub || "file").toUpperCase();
}

export function attachmentList(list: readonly AttachmentView[] | undefined): HTMLElement | null {
  if (!list?.length) return null;
  return h("div", { class: "attachments" }, ...list.map(attachmentView));
}

async function upload(file: Blob, name: string): Promise<UploadResult> {
  const res = await fetch(`/api/uploads?name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { "x-homed": "1" },
    body: file,
    credentials: "same-origin",
  });
  const data = (await res.json().catch(() => ({}))) as UploadResult & { error?: string };
  if (!res.ok) throw new ApiError(res.status, data.error ?? `${res.status}`);
  return data;
}

export class AttachTray {
  /** The previews above the composer. */
  readonly el: HTMLElement;
  /** Attach and Record, for the composer's row. */
  readonly buttons: HTMLElement;
  private readonly items = new Map<HTMLElement, AttachmentView | null>();
  private readonly picker: HTMLInputElement;
  private readonly mic: HTMLButtonElement;
  private recorder: MediaRecorder | null = null;

  constructor() {
    this.el = h("div", { class: "attach-tray", hidden: true });
    this.picker = h("input", { type: "file", multiple: true, hidden: true, id: "attach-input" });
    this.picker.addEventListener("change", () => {
      this.add([...(this.picker.files ?? [])]);
      this.picker.value = "";
    });
    this.mic = h(
      "button",
      {
        type: "button",
        class: "ghost",
        id: "record",
        title: "Record a voice message",
        onclick: () => void this.record(),
      },
      "Record",
    );
    this.buttons = h(
      "div",
      { class: "attach-buttons" },
      this.picker,
      h(
        "button",
        { type: "button", class: "ghost", id: "attach", title: "Attach files", onclick: () => this.picker.click() },
        "Attach",
      ),
      this.mic,
    );
  }

  /** Paste and drop on `target` add files. */
  listen(target: HTMLElement): void {
    target.addEventListener("paste", (e) => {
      const files = [...(e.clipboardData?.files ?? [])];
      if (files.length) {
        e.preventDefault();
        this.add(files);
      }
    });
    target.addEventListener("dragover", (e) => {
      if (e.dataTransfer?.types.includes("Files")) {
        e.preventDefault();
        target.classList.add("dropping");
      }
    });
    target.addEventListener("dragleave", () => target.classList.remove("dropping"));
    target.addEventListener("drop", (e) => {
      target.classList.remove("dropping");
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length) {
        e.preventDefault();
        this.add(files);
      }
    });
  }

  /** Upload `files`, each with its preview; one that fails says why and can be removed. */
  add(files: readonly (File | { blob: Blob; name: string })[]): void {
    for (const f of files) {
      if (this.items.size >= MAX_FILES) break;
      const blob = f instanceof File ? f : f.blob;
      const name = f instanceof File ? f.name || "pasted" : f.name;
      const slot = h("div", { class: "att-pending" }, h("span", { class: "att-name" }, `${name} · uploading…`));
      const chip = h(
        "div",
        { class: "att-chip" },
        slot,
        h("button", { type: "button", class: "att-remove", title: "Remove", onclick: () => this.drop(chip) }, "×"),
      );
      this.items.set(chip, null);
      this.el.append(chip);
      this.el.hidden = false;
      upload(blob, name).then(
        (a) => {
          if (!this.items.has(chip)) return;
          this.items.set(chip, a);
          slot.replaceWith(attachmentView(a));
        },
        (err: Error) => {
          slot.classList.add("att-error");
          slot.textContent = `${name}: ${err.message}`;
        },
      );
    }
  }

  private drop(chip: HTMLElement): void {
    this.items.delete(chip);
    chip.remove();
    this.el.hidden = this.items.size === 0;
  }

  /** Uploads still running. */
  busy(): boolean {
    return [...this.items].some(([chip, a]) => a === null && !chip.querySelector(".att-error"));
  }

  /** What finished uploading, for the message being sent; the tray is emptied. */
  take(): AttachmentView[] {
    const done = [...this.items.values()].filter((a): a is AttachmentView => a !== null);
    for (const chip of this.items.keys()) chip.remove();
    this.items.clear();
    this.el.hidden = true;
    return done;
  }

  /** Start recording, or stop and attach what was recorded. */
  private async record(): Promise<void> {
    if (this.recorder) {
      this.recorder.stop();
      return;
    }
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (err) {
      this.mic.title = `No microphone: ${(err as Error).message}`;
      this.mic.classList.add("att-error");
      return;
    }
    const rec = new MediaRecorder(stream);
    const parts: Blob[] = [];
    rec.addEventListener("dataavailable", (e) => parts.push(e.data));
    rec.addEventListener("stop", () => {
      for (const t of stream.getTracks()) t.stop();
      this.recorder = null;
      this.mic.classList.remove("recording");
      this.mic.textContent = "Record";
      const type = rec.mimeType || "audio/webm";
      const ext = type.includes("ogg") ? "ogg" : type.includes("mp4") ? "m4a" : "webm";
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
      this.add([{ blob: new Blob(parts, { type }), name: `voice-${stamp}.${ext}` }]);
    });
    this.recorder = rec;
    rec.start();
    this.mic.classList.add("recording");
    this.mic.textContent = "Stop ■";
  }
}
