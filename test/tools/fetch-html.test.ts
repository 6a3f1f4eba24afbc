/**
 * plugins/fetch/html-text.ts: what of an HTML page becomes text, case by case (the whole path
 * over HTTP is in fetch-url.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { htmlToText } from "../../plugins/fetch/html-text.ts";

const PAGE = "https://site.example/a/page.html";
const text = (html: string) => htmlToText(html, PAGE).text;

describe("htmlToText", () => {
  test("nested lists keep their markers and depth; an empty item lends its marker to nothing", () => {
    expect(text(`<ul><li>a<ol start="3"><li>b</li><li>c</li></ol></li><li><nav>menu</nav></li></ul><p>after</p>`)).toBe(
      "- a\n  3. b\n  4. c\n\nafter",
    );
  });

  test("table cells stay on their row even when they hold paragraphs", () => {
    expect(
      text(`<table><tr><th>k</th><th>v</th></tr><tr><td><p>one</p></td><td><div>two</div></td></tr></table>`),
    ).toBe("k | v\none | two");
  });

  test("pre keeps its whitespace and entities are decoded everywhere", () => {
    expect(text(`<p>a &lt;b&gt; &amp; &eacute;&#x263A;</p><pre>  x\n    y &amp;&amp; z\n</pre>`)).toBe(
      "a <b> & é☺\n\n```\n  x\n    y && z\n```",
    );
  });

  test("links: absolute, numbered once per URL, in-page anchors, script and mail links dropped", () => {
    const r = htmlToText(
      `<p><a href="intro">Intro</a>, <a href="#top">top</a>, <a href="page.html#top">top2</a>, ` +
        `<a href="javascript:void(0)">js</a>, <a href="mailto:x@y.z">mail</a>, <a href="intro">again</a>, <a href="/x"></a></p>`,
      PAGE,
    );
    expect(r.text).toBe("Intro [1], top, top2, js, mail, again [1],");
    expect(r.links).toEqual(["https://site.example/a/intro"]);
    // Relative links follow <base>, as in a browser.
    expect(htmlToText(`<head><base href="https://cdn.example/docs/"></head><a href="intro">i</a>`, PAGE).links).toEqual(
      ["https://cdn.example/docs/intro"],
    );
  });

  test("hidden and chrome elements are dropped", () => {
    expect(
      text(
        `<div role="navigation">nav</div><div aria-hidden="true">aria</div><p hidden>h</p><p style="display: none">d</p>` +
          `<form><label>Name</label><input value="v"><button>Send</button><select><option>o</option></select></form><p>kept</p>`,
      ),
    ).toBe("Name\n\nkept");
  });

  test("main content wins only when it holds the page's text", () => {
    const filler = "word ".repeat(200);
    const teaser = `<article><p>short teaser</p></article><div><p>${filler}</p></div>`;
    expect(text(teaser)).toContain("short teaser");
    expect(text(teaser)).toContain("word word");
    const real = `<div><p>site blurb</p></div><main><h1>Title</h1><p>${filler}</p></main>`;
    expect(text(real)).not.toContain("site blurb");
    expect(text(real)).toStartWith("# Title");
  });

  test("an article's own header is kept; the site's header is not", () => {
    expect(text(`<header>Site</header><article><header><h1>Post</h1></header><p>body</p></article>`)).toBe(
      "# Post\n\nbody",
    );
  });

  test("broken markup is read as browsers would", () => {
    expect(text(`<p>one<p>two<li>three<div>four</span></div>five`)).toBe("one\n\ntwo\n\n- three\n\nfour\n\nfive");
  });
});
