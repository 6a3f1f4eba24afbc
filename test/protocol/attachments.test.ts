/**
 * Attachment types come from the bytes (src/protocol/attachments.ts): each format we take is
 * recognised by its magic numbers whatever its name says, text only when it is UTF-8 without
 * control bytes, a zip only when it is a Word document; and the text the model and memory read
 * of a message names every attachment with what was read from it, or why nothing was.
 */
import { describe, expect, test } from "bun:test";
import { sniffAttachmentMime, userMessageText } from "../../src/protocol/attachments.ts";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...Buffer.from(p, "latin1")] : p)));

describe("sniffAttachmentMime", () => {
  test("each type by its magic bytes, whatever the name says", () => {
    const cases: [Uint8Array, string | null][] = [
      [bytes([0x89], "PNG\r\n\x1a\n", [0, 0]), "image/png"],
      [bytes([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg"],
      [bytes("OggS", [0, 2]), "audio/ogg"],
      [bytes([0x1a, 0x45, 0xdf, 0xa3, 1]), "audio/webm"],
      [bytes("ID3", [4, 0]), "audio/mpeg"],
      [bytes([0xff, 0xfb, 0x90, 0x44]), "audio/mpeg"],
      [bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "), "audio/wav"],
      [bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 "), "image/webp"],
      [bytes("fLaC", [0]), "audio/flac"],
      [bytes([0, 0, 0, 0x20], "ftypM4A ", [0]), "audio/mp4"],
      [bytes([0, 0, 0, 0x20], "ftypisom", [0]), "video/mp4"],
      [bytes("%PDF-1.7\n"), "application/pdf"],
      [
        bytes("PK\x03\x04", [20, 0], "....word/document.xml"),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      ],
      [bytes("PK\x03\x04", [20, 0], "....evil/payload.bin"), null],
      [bytes("<!DOCTYPE html><p>hi"), "text/html"],
      [bytes("  <html><body>"), "text/html"],
      [new TextEncoder().encode("plain words, café ☕\n"), "text/plain"],
      [bytes([0, 1, 2, 3]), null],
      [bytes([0xc3, 0x28, 0x41]), null],
      [new Uint8Array(), null],
    ];
    for (const [b, want] of cases) expect(sniffAttachmentMime(b, "photo.jpg")).toBe(want as never);
  });

  test("a text file is Markdown only by its name; a binary named .md is still refused", () => {
    expect(sniffAttachmentMime(bytes("# Title\n"), "notes.md")).toBe("text/markdown");
    expect(sniffAttachmentMime(bytes("# Title\n"), "notes.txt")).toBe("text/plain");
    expect(sniffAttachmentMime(bytes([0, 0, 0, 1]), "notes.md")).toBeNull();
  });
});

describe("userMessageText", () => {
  test("the words, then each attachment with its text (and what its note says) or the note saying why there is none", () => {
    const text = userMessageText("look", [
      {
        sha256: "a".repeat(64),
        mime: "image/png",
        bytes: 2048,
        kind: "image",
        name: "s.png",
        text: "HELLO",
        textKind: "ocr",
      },
      {
        sha256: "b".repeat(64),
        mime: "audio/ogg",
        bytes: 10,
        kind: "audio",
        note: "text not extracted: no plugin provides media.extract",
      },
      {
        sha256: "c".repeat(64),
        mime: "application/pdf",
        bytes: 3 * 1024 * 1024,
        kind: "file",
        name: "long.pdf",
        text: "Page one.",
        textKind: "document",
        note: "pages 1–500 of 812",
      },
    ]);
    expect(text).toBe(
      [
        "look",
        '[attached image "s.png" (image/png, 2 KB)]\ntext read from it (OCR):\nHELLO',
        "[attached audio (audio/ogg, 10 B)] (text not extracted: no plugin provides media.extract)",
        '[attached document "long.pdf" (application/pdf, 3.0 MB)]\nits text (pages 1–500 of 812):\nPage one.',
      ].join("\n\n"),
    );
    expect(userMessageText("just words", [])).toBe("just words");
  });
});
