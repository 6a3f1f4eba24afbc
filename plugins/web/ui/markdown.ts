/**
 * Model output as HTML, safe by configuration: markdown-it with raw HTML off (every `<` in the
 * text is escaped, so no tag, style or SVG the model writes reaches the page), links limited to
 * http(s) and mailto (images also to data:image of the raster kinds) — `javascript:` and friends
 * stay plain text. Nothing rendered makes a request by itself: an image from anywhere but a
 * data: URL is shown as a link the person may open, since fetching it would hand its URL — which
 * the model may have filled with secrets from the conversation — to whoever serves it. Code blocks are highlighted by highlight.js core with a few common languages
 * (the full set would triple the bundle) and carry a copy button the chat pane wires up.
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";

for (const [name, lang] of Object.entries({
  bash,
  css,
  diff,
  go,
  javascript,
  json,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
}))
  hljs.registerLanguage(name, lang);

const SAFE_URL = /^(https?:\/\/|mailto:)/i;
const SAFE_IMAGE_DATA = /^data:image\/(png|jpeg|gif|webp);/i;

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
md.validateLink = (url) => SAFE_URL.test(url.trim()) || SAFE_IMAGE_DATA.test(url.trim());

const esc = md.utils.escapeHtml;

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  if (!token) return "";
  const lang = token.info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const known = lang && hljs.getLanguage(lang) ? lang : "";
  const code = known
    ? hljs.highlight(token.content, { language: known, ignoreIllegals: true }).value
    : esc(token.content);
  return `<div class="code"><div class="code-head"><span class="code-lang">${esc(lang || "text")}</span><button type="button" class="copy-code">Copy</button></div><pre><code class="hljs${known ? ` language-${known}` : ""}">${code}</code></pre></div>`;
};

const defaultLink =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  token?.attrSet("target", "_blank");
  token?.attrSet("rel", "noopener noreferrer");
  return defaultLink(tokens, idx, options, env, self);
};

md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx];
  if (!token) return "";
  const src = token.attrGet("src") ?? "";
  const alt = token.content || "image";
  if (SAFE_IMAGE_DATA.test(src)) return `<img src="${esc(src)}" alt="${esc(alt)}">`;
  return `<a class="remote-image" href="${esc(src)}" target="_blank" rel="noopener noreferrer" title="${esc(src)}">${esc(`image: ${alt}`)}</a>`;
};

export function escapeHtml(text: string): string {
  return esc(text);
}

export function renderMarkdown(text: string): string {
  return md.render(text);
}
