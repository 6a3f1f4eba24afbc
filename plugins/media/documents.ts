/**
 * One entry for every document type: the sniffed kind picks PDF (poppler), DOCX (zip.ts +
 * docx.ts), Markdown, HTML or plain text. Used by media_read_doc and by media/extract.
 */
import type { DocText } from "./doc-text.ts";
import { docxText } from "./docx.ts";
import { htmlText, markdownText } from "./markup.ts";
import { MediaError } from "./media-error.ts";
import type { Input } from "./media-files.ts";
import { type PageRange, pdfText } from "./pdf.ts";
import type { RunOptions } from "./programs.ts";
import type { MediaKind } from "./sniff.ts";

export async function documentText(
  input: Input,
  kind: MediaKind,
  range: PageRange,
  maxPages: number,
  opts: RunOptions,
): Promise<DocText> {
  const text = () => new TextDecoder().decode(input.bytes);
  switch (kind) {
    case "pdf":
      return pdfText(input.copy, input.what, range, maxPages, opts);
    case "docx":
      return docxText(input.bytes, input.what);
    case "markdown":
      return markdownText(text());
    case "html":
      return htmlText(text());
    case "text":
      return { text: text(), anchors: [], note: "text" };
    case "zip":
      throw new MediaError(`${input.what} is a ZIP archive but not a Word document (no word/document.xml)`);
    case "image":
      throw new MediaError(`${input.what} is an image; media_ocr reads the text in it`);
    case "audio-or-video":
      throw new MediaError(`${input.what} is audio or video; use media_transcribe or media_video_frames`);
    default:
      throw new MediaError(
        `${input.what} is not a document media_read_doc knows (PDF, DOCX, Markdown, HTML, plain UTF-8 text)`,
      );
  }
}
