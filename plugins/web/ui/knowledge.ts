/**
 * The Knowledge page: the stable graph (L3) the distillation made of cold conversations. A plain
 * SVG draws the facts as nodes and edges; below it each fact with where it was learned, its
 * superseded history, and Correct (a new fact that supersedes it) and Delete (hidden, logged)
 * buttons. /api/facts (plugins/web/l3-routes.ts) behind it.
 */
import { api, type ApiError } from "./api.ts";
import { clear, h } from "./dom.ts";
import { formatDay } from "../../../src/shared/time-format.ts";
import type {
  FactView,
  L3DistillResult,
  L3FactsResult,
  L3HistoryResult,
  L3RecallResult,
} from "../../../src/protocol/l3.ts";

const SVG = "http://www.w3.org/2000/svg";
const day = formatDay;

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Nodes on a circle, edges as labelled lines: enough to see what connects to what. */
function graphView(facts: readonly FactView[]): Element {
  const nodes = new Map<number, string>();
  for (const f of facts) {
    nodes.set(f.subject.id, f.subject.label);
    nodes.set(f.object.id, f.object.label);
  }
  const ids = [...nodes.keys()].slice(0, 60);
  // An ellipse wider than tall, with room above each node for its name.
  const [w, hgt] = [640, 300 + Math.min(ids.length, 40) * 4];
  const at = new Map(
    ids.map((id, i) => {
      const a = (2 * Math.PI * i) / Math.max(ids.length, 1) - Math.PI / 2;
      return [id, { x: w / 2 + (w / 2 - 90) * Math.cos(a), y: hgt / 2 + 8 + (hgt / 2 - 40) * Math.sin(a) }];
    }),
  );
  const root = svg("svg", { class: "kg", viewBox: `0 0 ${w} ${hgt}`, role: "img", "aria-label": "knowledge graph" });
  for (const f of facts) {
    const a = at.get(f.subject.id);
    const b = at.get(f.object.id);
    if (!a || !b) continue;
    const edge = svg("g", { class: f.supersededBy ? "kg-edge old" : "kg-edge", "data-fact": f.id });
    edge.append(svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y }));
    edge.append(svg("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 3, "text-anchor": "middle" }, f.predicate));
    root.append(edge);
  }
  for (const id of ids) {
    const p = at.get(id);
    if (!p) continue;
    const node = svg("g", { class: "kg-node", "data-node": id });
    node.append(svg("circle", { cx: p.x, cy: p.y, r: 6 }));
    node.append(svg("text", { x: p.x, y: p.y - 10, "text-anchor": "middle" }, nodes.get(id) ?? ""));
    root.append(node);
  }
  return root;
}

function provenance(f: FactView): HTMLElement {
  if (f.sources.length === 0)
    return h("span", { class: "kg-src" }, f.origin === "person" ? `corrected by you · ${day(f.validFrom)}` : "");
  return h(
    "span",
    { class: "kg-src" },
    "from ",
    ...f.sources.flatMap((s, i) => [
      i ? ", " : "",
      h("a", { class: "conv-link", href: `#/chat/${encodeURIComponent(s.conv)}` }, s.conv),
      ` ${day(s.ts)}${s.untrusted ? " (untrusted)" : ""}`,
    ]),
  );
}

function factRow(f: FactView, reload: () => void): HTMLElement {
  const msg = h("span", { class: "form-msg" });
  const fail = (err: unknown) => {
    msg.className = "form-msg bad";
    msg.textContent = (err as ApiError).message;
  };
  const hist = h("ul", { class: "kg-history" });
  const details = h("details", {}, h("summary", {}, "History"), hist);
  details.addEventListener("toggle", async () => {
    if (!details.open || hist.childElementCount) return;
    const r = await api<L3HistoryResult>(`/api/facts/${f.id}/history`).catch((err) => {
      fail(err);
      return null;
    });
    for (const x of r?.facts ?? [])
      hist.append(
        h(
          "li",
          { class: x.supersededBy ? "old" : "" },
          `${x.object.label} · since ${day(x.validFrom)}${x.supersededBy ? ` · superseded by #${x.supersededBy}` : " · current"}${x.hiddenAt ? " · deleted" : ""} `,
          provenance(x),
        ),
      );
    for (const l of r?.log ?? [])
      hist.append(h("li", { class: "kg-log" }, `${day(l.ts)} ${l.action} #${l.factId} by ${l.actor} ${l.detail}`));
  });
  const input = h("input", { class: "kg-correct", placeholder: `the right ${f.predicate}` });
  const correct = h(
    "form",
    {
      class: "row",
      onsubmit: async (ev: Event) => {
        ev.preventDefault();
        await api<FactView>(`/api/facts/${f.id}/correct`, { object: input.value }).then(reload, fail);
      },
    },
    input,
    h("button", { class: "small", type: "submit" }, "Correct"),
    h(
      "button",
      {
        class: "small danger",
        type: "button",
        onclick: async () => {
          if (
            !confirm(
              `Delete "${f.subject.label} ${f.predicate} ${f.object.label}"? It is hidden from recall (and logged).`,
            )
          )
            return;
          await api(`/api/facts/${f.id}/delete`, { reason: "deleted in the web UI" }).then(reload, fail);
        },
      },
      "Delete",
    ),
    msg,
  );
  return h(
    "div",
    { class: "ctx kg-fact", "data-fact": String(f.id) },
    h(
      "div",
      { class: "ctx-head" },
      h("b", {}, f.subject.label),
      ` ${f.predicate} `,
      h("b", {}, f.object.label),
      h("span", { class: "tag" }, `since ${day(f.validFrom)}`),
      f.supersededBy ? h("span", { class: "tag" }, `superseded by #${f.supersededBy}`) : null,
      f.hiddenAt ? h("span", { class: "tag" }, "deleted") : null,
      f.origin === "person" ? h("span", { class: "tag" }, "yours") : null,
    ),
    provenance(f),
    details,
    f.hiddenAt ? null : correct,
  );
}

/** What a trusted turn would be told for a message: the note L3 recall would add. */
function previewForm(): HTMLElement {
  const text = h("input", { class: "kg-ask", placeholder: "Where do I live?" });
  const out = h("pre", { class: "kg-preview" });
  const ask = async (ev: Event) => {
    ev.preventDefault();
    if (!text.value.trim()) return;
    const r = await api<L3RecallResult>(`/api/facts/recall?q=${encodeURIComponent(text.value)}`).catch(
      (err: ApiError) => ({ note: err.message }),
    );
    out.textContent = r.note ?? "No fact would be recalled for this.";
  };
  return h(
    "details",
    { class: "kg-preview-box" },
    h("summary", {}, "What would homed be told?"),
    h("form", { class: "row", onsubmit: ask }, text, h("button", { class: "small", type: "submit" }, "Show")),
    out,
  );
}

export function knowledgeView(): HTMLElement {
  const body = h("div", { id: "knowledge" });
  const q = h("input", { type: "search", placeholder: "Search facts" });
  const old = h("input", { type: "checkbox" });
  const status = h("span", { class: "form-msg" });
  /** What the last "Distill now" did, in words: kept apart from the counts that load() writes. */
  const outcome = h("p", { class: "hint distill-outcome" });
  const load = async () => {
    const params = new URLSearchParams({ q: q.value, superseded: old.checked ? "1" : "0" });
    try {
      const r = await api<L3FactsResult>(`/api/facts?${params}`);
      clear(body);
      status.textContent = `${r.counts.current} current facts, ${r.counts.facts} in all, ${r.counts.nodes} nodes`;
      if (r.facts.length === 0) {
        body.append(
          h(
            "p",
            { class: "hint no-facts" },
            "No facts yet: conversations are distilled once they have been cold for a while.",
          ),
        );
        return;
      }
      body.append(graphView(r.facts), ...r.facts.map((f) => factRow(f, () => void load())));
    } catch (err) {
      status.className = "form-msg bad";
      status.textContent = (err as ApiError).message;
    }
  };
  const distill = async () => {
    outcome.textContent = "Distilling…";
    const r = await api<L3DistillResult>("/api/facts/distill", {}).catch((err) => {
      outcome.textContent = (err as ApiError).message;
      return null;
    });
    if (!r) return;
    outcome.textContent = distillOutcome(r);
    await load();
  };
  void load();
  return h(
    "section",
    { class: "page" },
    h("h2", {}, "Knowledge"),
    h(
      "p",
      { class: "hint" },
      "Facts distilled from conversations nobody used for a while (the log keeps every word). A newer fact about the same thing supersedes the older one; correct a fact to say what is right, or delete it to hide it from recall.",
    ),
    h(
      "form",
      {
        class: "row",
        onsubmit: (ev: Event) => {
          ev.preventDefault();
          void load();
        },
      },
      q,
      h("label", {}, old, " show superseded"),
      h("button", { class: "small", type: "submit" }, "Search"),
      h("button", { class: "small", type: "button", onclick: () => void distill() }, "Distill now"),
    ),
    status,
    outcome,
    previewForm(),
    body,
  );
}

/** "Distill now" in words, nothing done included: an empty result says why, not nothing. */
function distillOutcome(r: L3DistillResult): string {
  const why =
    r.stopped === "budget"
      ? " It stopped at its token budget; the rest goes in the next run."
      : r.stopped === "model_failed"
        ? " The model failed; nothing was removed, and it is tried again later."
        : "";
  if (r.turns === 0)
    return `Nothing to distill: no turn has been cold long enough yet ([memory.distill] idle_hours).${why}`;
  const turns = `${r.turns} cold turn${r.turns === 1 ? "" : "s"}`;
  return `Distilled ${turns} into ${r.facts} new fact${r.facts === 1 ? "" : "s"}.${why}`;
}
