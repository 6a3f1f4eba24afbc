/**
 * The chat's streaming renderer (plugins/web/ui/markdown-stream.ts): a reply streamed in small deltas
 * shows, after every delta, what rendering the text so far in one piece shows — blocks settled
 * at blank lines outside code fences, the open block rendered again — and ends exactly as
 * `renderMarkdown` renders the whole reply.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { MarkdownStream, type MarkdownTarget } from "../../plugins/web/ui/markdown-stream.ts";
import { ROOT } from "../harness/binary.ts";

// The page's renderer, loaded as the page loads it; its libraries' types are the browser's, not
// this program's (tsconfig.json leaves plugins/web/ui to its own).
const { renderMarkdown } = (await import(join(ROOT, "plugins/web/ui/markdown.ts"))) as {
  renderMarkdown(text: string): string;
};
import { sampleReply } from "../harness/sample-reply.ts";

/** The two things MarkdownStream does to an element. */
class FakeElement implements MarkdownTarget {
  innerHTML = "";
  insertAdjacentHTML(_where: "beforeend", html: string): void {
    this.innerHTML += html;
  }
}

function streamed(text: string, step: number, check: (shown: string, sofar: string) => void) {
  const done = new FakeElement();
  const tail = new FakeElement();
  const s = new MarkdownStream(done, tail, renderMarkdown);
  for (let i = 0; i < text.length; i += step) {
    s.append(text.slice(i, i + step));
    check(done.innerHTML + tail.innerHTML, text.slice(0, i + step));
  }
  return { s, done, tail };
}

describe("MarkdownStream", () => {
  test("after every delta it shows what the text so far renders to, and ends as the whole does", () => {
    const text = sampleReply(6000);
    expect(text).toContain("```ts");
    let steps = 0;
    const { s, done, tail } = streamed(text, 7, (shown, sofar) => {
      steps++;
      expect(shown).toBe(renderMarkdown(sofar));
    });
    expect(steps).toBeGreaterThan(800);
    s.finish();
    expect(done.innerHTML).toBe(renderMarkdown(text));
    expect(tail.innerHTML).toBe("");
  });

  test("a blank line inside a code fence does not cut the block; a tilde fence closes only on tildes", () => {
    const text = "Intro.\n\n```py\nx = 1\n\ny = 2\n```\n\n~~~\na\n```\n\nb\n~~~\n\nAfter.\n";
    streamed(text, 3, (shown, sofar) => expect(shown).toBe(renderMarkdown(sofar)));
  });

  test("a replaced reply (a retried model call) renders from its start", () => {
    const { s, done, tail } = streamed("First try, with a paragraph.\n\nAnd more", 4, () => {});
    s.set("Second try.");
    expect(done.innerHTML + tail.innerHTML).toBe(renderMarkdown("Second try."));
    s.append(" Goes on.");
    expect(done.innerHTML + tail.innerHTML).toBe(renderMarkdown("Second try. Goes on."));
    expect(s.value).toBe("Second try. Goes on.");
  });
});
