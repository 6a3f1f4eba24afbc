/**
 * The scenes page: the recurring situations memory found (a weekly call, a group chat, a daily
 * routine) with their strength, members and settings, and a form for each scene's persona and
 * allowed tools. /api/scenes (plugins/web/scenes-routes.ts) behind it.
 */
import { api, type ApiError } from "./api.ts";
import { clear, h, timeAgo } from "./dom.ts";
import type { SceneDetail, SceneView } from "../../../src/protocol/scenes.ts";
import { formatTime } from "../../../src/shared/time-format.ts";

/** What a person calls a scene: its declared key, or what clustering found it to be. */
function title(s: SceneView): string {
  if (s.key) return s.key;
  const what = [s.tools.length ? `tools ${s.tools.join(", ")}` : "", s.topic.slice(0, 3).join(" ")]
    .filter(Boolean)
    .join(" · ");
  return `${what || "conversation"}${s.parentKey ? ` in ${s.parentKey}` : s.channel ? ` on ${s.channel}` : ""}`;
}

function facts(s: SceneView): HTMLElement {
  const item = (k: string, v: string) => h("span", { class: "scene-fact" }, h("b", {}, k), ` ${v}`);
  return h(
    "div",
    { class: "scene-facts" },
    item("strength", s.strength.toFixed(2)),
    item("members", `${s.members} turns`),
    s.partner ? item("partner", s.partner) : null,
    s.hour !== null ? item("around", `${String(s.hour).padStart(2, "0")}:00`) : null,
    s.topic.length ? item("topic", s.topic.join(", ")) : null,
    item("last", timeAgo(s.lastSeen)),
  );
}

/** The persona and the tools a scene's turns may use; saved at once (the scene is drawn again, saying so). */
function settingsForm(s: SceneView, saved: (s: SceneView, note: string) => void, note: string): HTMLElement {
  const persona = h("textarea", { class: "scene-persona", rows: "2", placeholder: "Added to the system prompt" });
  persona.value = s.settings.persona;
  const tools = h("input", { class: "scene-tools", placeholder: "all the approval policy allows" });
  tools.value = s.settings.tools?.join(", ") ?? "";
  const skills = h("input", { class: "scene-skills", placeholder: "every enabled skill" });
  skills.value = s.settings.skills?.join(", ") ?? "";
  const msg = h("span", { class: note ? "form-msg ok" : "form-msg" }, note);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const words = (input: HTMLInputElement) =>
      input.value
        .split(/[\s,]+/)
        .map((t) => t.trim())
        .filter(Boolean);
    const list = words(tools);
    const only = words(skills);
    try {
      const next = await api<SceneView>(`/api/scenes/${s.id}`, {
        persona: persona.value.trim(),
        tools: list.length ? list : null,
        skills: only.length ? only : null,
      });
      saved(next, "Saved.");
    } catch (err) {
      msg.className = "form-msg bad";
      msg.textContent = (err as ApiError).message;
    }
  };
  return h(
    "form",
    { class: "scene-settings", onsubmit: submit },
    h("label", {}, "Persona", persona),
    h("label", {}, "Only these tools (comma-separated; empty: not narrowed)", tools),
    h("label", {}, "Only these skills (comma-separated; empty: not narrowed)", skills),
    h("div", { class: "row" }, h("button", { class: "small", type: "submit" }, "Save"), msg),
  );
}

/** The newest member turns, loaded when the person opens them. */
function membersView(s: SceneView): HTMLElement {
  const list = h("ul", { class: "scene-members" });
  const details = h("details", {}, h("summary", {}, "Member turns"), list);
  details.addEventListener("toggle", async () => {
    if (!details.open || list.childElementCount) return;
    const d = await api<SceneDetail>(`/api/scenes/${s.id}`).catch(() => null);
    for (const m of d?.recent ?? [])
      list.append(
        h(
          "li",
          {},
          h("a", { class: "conv-link", href: `#/chat/${encodeURIComponent(m.conv)}` }, m.conv),
          ` · ${formatTime(m.ts)}`,
        ),
      );
  });
  return details;
}

function sceneView(s: SceneView): HTMLElement {
  const box = h("div", { class: "ctx scene", "data-scene": String(s.id) });
  const fill = (x: SceneView, note = "") => {
    clear(box);
    box.append(
      h(
        "div",
        { class: "ctx-head" },
        h("b", {}, title(x)),
        x.key ? h("span", { class: "tag" }, "declared") : h("span", { class: "tag" }, "found"),
        x.settings.persona || x.settings.tools || x.settings.skills ? h("span", { class: "tag" }, "settings") : null,
      ),
      facts(x),
      settingsForm(x, fill, note),
      membersView(x),
    );
  };
  fill(s);
  return box;
}

export function scenesView(): HTMLElement {
  const list = h("div", { class: "context", id: "scenes" });
  void api<SceneView[]>("/api/scenes")
    .then((scenes) => {
      if (scenes.length === 0)
        list.append(h("p", { class: "hint no-scenes" }, "No scene yet: one appears when a situation recurs."));
      for (const s of scenes) list.append(sceneView(s));
    })
    .catch((err: Error) => list.append(h("p", { class: "form-msg bad" }, err.message)));
  return h(
    "section",
    { class: "page" },
    h("h2", {}, "Scenes"),
    h(
      "p",
      { class: "hint" },
      "Situations that recur: a group chat, a weekly call, a daily routine. Memories of the scene you are in come first; a scene's persona, tools and skills apply to its turns (tools and skills only ever narrow what the approval rules allow).",
    ),
    list,
  );
}
