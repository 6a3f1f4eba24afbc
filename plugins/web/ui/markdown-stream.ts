/**
 * Streaming markdown for the chat pane, apart from the renderer itself (markdown.ts) so that it
 * can be tested without a page.
 */

/** A line that opens or closes a fenced code block: its marker (``` or ~~~, three or more). */
const FENCE = /^\s*(`{3,}|~{3,})/;

/**
 * A reply's markdown while it streams. What lies before the last blank line outside a code
 * fence is settled: rendered once and kept. Each delta renders only the tail after it, so
 * applying one costs the open block, not the whole reply (a 20,000-character answer re-rendered
 * on every delta was O(n²) over the turn). A settled cut may render a loose list as two lists
 * for a moment; `finish()` renders the whole text once, exactly as rendering it whole does.
 */
/** What MarkdownStream writes into: an element (only these two of its members, so a test can stand in). */
export interface MarkdownTarget {
  innerHTML: string;
  insertAdjacentHTML(where: "beforeend", html: string): void;
}

export class MarkdownStream {
  private text = "";
  /** Characters of `text` rendered into `done`. */
  private settled = 0;
  /** Where the scan for cuts goes on (a line's start), and the fence open there ("" if none). */
  private scanned = 0;
  private fence = "";
  /** The last place a block may be cut (after a blank line outside a fence). */
  private cut = 0;

  constructor(
    private readonly done: MarkdownTarget,
    private readonly tail: MarkdownTarget,
    /** markdown.ts's renderMarkdown in the page. */
    private readonly render: (text: string) => string,
  ) {}

  get value(): string {
    return this.text;
  }

  append(delta: string): void {
    this.text += delta;
    this.scan();
    if (this.cut > this.settled) {
      this.done.insertAdjacentHTML("beforeend", this.render(this.text.slice(this.settled, this.cut)));
      this.settled = this.cut;
    }
    this.tail.innerHTML = this.render(this.text.slice(this.settled));
  }

  /** The whole text replaced (a retried model call): rendered again from its start. */
  set(text: string): void {
    this.text = "";
    this.settled = 0;
    this.scanned = 0;
    this.cut = 0;
    this.fence = "";
    this.done.innerHTML = "";
    this.append(text);
  }

  /** The reply is complete: render it in one piece. */
  finish(): void {
    this.done.innerHTML = this.render(this.text);
    this.tail.innerHTML = "";
  }

  /** Read the complete lines not read yet, noting fences and the last cut outside one. */
  private scan(): void {
    for (let nl = this.text.indexOf("\n", this.scanned); nl >= 0; nl = this.text.indexOf("\n", this.scanned)) {
      const line = this.text.slice(this.scanned, nl);
      this.scanned = nl + 1;
      const marker = FENCE.exec(line)?.[1];
      if (marker !== undefined) {
        if (!this.fence) this.fence = marker;
        else if (marker[0] === this.fence[0] && marker.length >= this.fence.length && !line.trim().slice(marker.length))
          this.fence = "";
      } else if (!this.fence && line.trim() === "") this.cut = this.scanned;
    }
  }
}
