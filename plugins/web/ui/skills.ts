/**
 * The Skills page: the Agent Skills homed found (DATA/skills and the folders of [skills] paths),
 * each with where it is, whether its text is trusted, whether it is offered, and why a malformed
 * one is skipped; enable/disable, trust (an installed skill), read its SKILL.md, remove one of
 * DATA/skills. /api/skills (plugins/web/skills-routes.ts) behind it.
 */
import { api, type ApiError } from "./api.ts";
import { clear, h } from "./dom.ts";
import type { SkillReadResult, SkillView } from "../../../src/protocol/skills.ts";

function facts(s: SkillView): HTMLElement {
  const item = (k: string, v: string) => h("span", { class: "scene-fact" }, h("b", {}, k), ` ${v}`);
  return h(
    "div",
    { class: "scene-facts" },
    item("folder", s.dir),
    s.installedFrom
      ? item("installed from", s.installedFrom)
      : item("from", s.where === "data" ? "DATA/skills" : s.root),
  );
}

/** SKILL.md as it is on disk, loaded when the person opens it. */
function textView(s: SkillView): HTMLElement {
  const pre = h("pre", { class: "skill-text" });
  const details = h("details", { class: "skill-read" }, h("summary", {}, "SKILL.md"), pre);
  details.addEventListener("toggle", async () => {
    if (!details.open || pre.textContent) return;
    try {
      pre.textContent = (await api<SkillReadResult>(`/api/skills/${encodeURIComponent(s.name)}`)).text;
    } catch (err) {
      pre.textContent = (err as ApiError).message;
    }
  });
  return details;
}

function skillView(s: SkillView, removed: () => void): HTMLElement {
  const box = h("div", { class: "ctx skill", "data-skill": s.name });
  const fill = (x: SkillView, note = "", bad = false) => {
    clear(box);
    const msg = h("span", { class: note ? `form-msg ${bad ? "bad" : "ok"}` : "form-msg" }, note);
    const change = async (body: { enabled?: boolean; trusted?: boolean }, done: string) => {
      try {
        fill(await api<SkillView>(`/api/skills/${encodeURIComponent(x.name)}`, body), done);
      } catch (err) {
        fill(x, (err as ApiError).message, true);
      }
    };
    const remove = async () => {
      if (!confirm(`Remove ${x.name}? Its folder ${x.dir} is deleted.`)) return;
      try {
        await api(`/api/skills/${encodeURIComponent(x.name)}/remove`, {});
        removed();
      } catch (err) {
        fill(x, (err as ApiError).message, true);
      }
    };
    const actions = x.problem
      ? []
      : [
          h(
            "button",
            {
              class: "small",
              type: "button",
              onclick: () => void change({ enabled: !x.enabled }, x.enabled ? "Disabled." : "Enabled."),
            },
            x.enabled ? "Disable" : "Enable",
          ),
          x.where === "data"
            ? h(
                "button",
                {
                  class: "small",
                  type: "button",
                  onclick: () => void change({ trusted: !x.trusted }, x.trusted ? "Untrusted." : "Trusted."),
                },
                x.trusted ? "Untrust" : "Trust",
              )
            : null,
        ];
    box.append(
      h(
        "div",
        { class: "ctx-head" },
        h("b", {}, x.name),
        x.problem
          ? h("span", { class: "tag untrusted" }, "invalid")
          : h("span", { class: "tag" }, x.enabled ? "enabled" : "disabled"),
        x.trusted ? h("span", { class: "tag" }, "trusted") : h("span", { class: "tag untrusted" }, "untrusted"),
        h("span", { class: "tag" }, x.where === "data" ? "DATA/skills" : "your folder"),
      ),
      x.problem
        ? h("p", { class: "form-msg bad skill-problem" }, x.problem)
        : h("p", { class: "skill-desc" }, x.description),
      facts(x),
      textView(x),
      h(
        "div",
        { class: "row" },
        ...actions,
        x.where === "data"
          ? h("button", { class: "small danger", type: "button", onclick: () => void remove() }, "Remove")
          : null,
        msg,
      ),
    );
  };
  fill(s);
  return box;
}

export function skillsView(): HTMLElement {
  const list = h("div", { class: "context", id: "skills" });
  const load = () => {
    clear(list);
    void api<SkillView[]>("/api/skills")
      .then((skills) => {
        if (skills.length === 0)
          list.append(
            h(
              "p",
              { class: "hint no-skills" },
              "No skill yet: put a skill folder (with its SKILL.md) in DATA/skills, run homed skills add DIR|GIT-URL, or name your own folders in config.toml's [skills] paths.",
            ),
          );
        for (const s of skills) list.append(skillView(s, load));
      })
      .catch((err: Error) => list.append(h("p", { class: "form-msg bad" }, err.message)));
  };
  load();
  return h(
    "section",
    { class: "page" },
    h("h2", {}, "Skills"),
    h(
      "p",
      { class: "hint" },
      "Agent Skills: instructions for a kind of task, with scripts and references beside them. The model is told the names and descriptions that fit the conversation and loads a skill when it needs it; a skill's scripts run through shell_run and code_run, asked about like any command. Skills installed from elsewhere are untrusted until you trust them: their text marks the conversation as untrusted.",
    ),
    list,
  );
}
