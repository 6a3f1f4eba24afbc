/** The chat pane: transcript, streaming reply, tool cards with approvals in place, stop button. */
import { alwaysAllowButton, conversationModel, conversationModelPicker } from "./settings.ts";
import { api, streamChat } from "./api.ts";
import { clear, h } from "./dom.ts";
import { renderMarkdown } from "./markdown.ts";

interface TranscriptItem {
  id: number;
  kind: "user" | "assistant" | "tool-call" | "tool-result";
  text: string;
  name?: string;
  status?: string;
  callId?: string;
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function bubble(role: "user" | "assistant", text: string): HTMLElement {
  const body = h("div", { class: "body" });
  if (role === "assistant") body.innerHTML = renderMarkdown(text);
  else body.textContent = text;
  return h("div", { class: `msg ${role}` }, body);
}

function toolCard(
  name: string,
  args: string,
): { el: HTMLElement; result(status: string, text: string): void; approval(el: HTMLElement): void } {
  const status = h("span", { class: "tool-status running" }, "running");
  const out = h("pre", { class: "tool-result" });
  const slot = h("div", { class: "approval-slot" });
  const el = h(
    "details",
    { class: "tool", open: true },
    h("summary", {}, h("span", { class: "tool-name" }, `⚙ ${name}`), status),
    h("pre", { class: "tool-args" }, pretty(args)),
    slot,
    out,
  );
  return {
    el,
    result(s, text) {
      status.textContent = s;
      status.className = `tool-status ${s}`;
      out.textContent = text;
      clear(slot);
    },
    approval(node) {
      clear(slot);
      slot.append(node);
      status.textContent = "waiting for you";
      status.className = "tool-status waiting";
    },
  };
}

export class ChatPane {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly stop: HTMLButtonElement;
  private running: { abort: AbortController; stream: string | null } | null = null;

  constructor(
    private conv: string,
    private readonly onTurnDone: () => void,
  ) {
    this.list = h("div", { class: "messages", id: "messages" });
    this.input = h("textarea", {
      id: "prompt",
      placeholder: "Message homed…  (Enter sends, Shift+Enter for a new line)",
      rows: "2",
    });
    this.send = h("button", { id: "send", class: "primary", onclick: () => void this.submit() }, "Send");
    this.stop = h("button", { id: "stop", class: "danger", hidden: true, onclick: () => void this.cancel() }, "Stop");
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        void this.submit();
      }
    });
    this.el = h(
      "section",
      { class: "chat" },
      this.list,
      conversationModelPicker(this.conv),
      h("div", { class: "composer" }, this.input, this.send, this.stop),
    );
  }

  async load(): Promise<void> {
    clear(this.list);
    const items = await api<TranscriptItem[]>(`/api/conversations/${encodeURIComponent(this.conv)}`).catch(() => []);
    const cards = new Map<string, ReturnType<typeof toolCard>>();
    for (const it of items) {
      if (it.kind === "user" || it.kind === "assistant") {
        const b = bubble(it.kind, it.text);
        // A reply that did not end normally says how it ended (stopped, error, limit…).
        if (it.kind === "assistant" && it.status && it.status !== "done")
          b.append(h("div", { class: "meta" }, it.status === "cancelled" ? "stopped" : it.status.replace(/_/g, " ")));
        this.list.append(b);
      } else if (it.kind === "tool-call") {
        const c = toolCard(it.name ?? "tool", it.text);
        c.el.removeAttribute("open");
        cards.set(it.callId ?? "", c);
        this.list.append(c.el);
      } else cards.get(it.callId ?? "")?.result(it.status ?? "", it.text);
    }
    if (!items.length)
      this.list.append(h("div", { class: "empty" }, "Ask anything. Tools the agent uses show up here as they run."));
    this.scroll();
    this.input.focus();
  }

  private scroll(): void {
    this.list.scrollTop = this.list.scrollHeight;
  }

  private async cancel(): Promise<void> {
    const r = this.running;
    if (!r) return;
    if (r.stream) await api("/api/cancel", { stream: r.stream }).catch(() => {});
    r.abort.abort();
  }

  private async submit(): Promise<void> {
    const text = this.input.value.trim();
    if (!text || this.running) return;
    this.input.value = "";
    this.list.querySelector(".empty")?.remove();
    this.list.append(bubble("user", text));
    let answer = bubble("assistant", "");
    answer.classList.add("streaming");
    this.list.append(answer);
    let draft = "";
    const cards = new Map<string, ReturnType<typeof toolCard>>();
    const running = { abort: new AbortController(), stream: null as string | null };
    this.running = running;
    this.send.hidden = true;
    this.stop.hidden = false;
    const paint = () => {
      answer.hidden = false;
      (answer.querySelector(".body") as HTMLElement).innerHTML = renderMarkdown(draft);
      this.scroll();
    };
    try {
      await streamChat(
        { conv: this.conv, text, ...conversationModel(this.conv) },
        (e) => {
          switch (e.type) {
            case "stream":
              running.stream = String(e.stream);
              break;
            case "text-delta":
              draft += String(e.text);
              paint();
              break;
            case "text-replace":
              draft = String(e.text);
              paint();
              break;
            case "tool-call": {
              if (!draft) answer.remove();
              answer.classList.remove("streaming");
              const c = toolCard(String(e.name), String(e.arguments));
              cards.set(String(e.callId), c);
              this.list.append(c.el);
              // The next model call's reply; shown once it has text.
              answer = bubble("assistant", "");
              answer.classList.add("streaming");
              answer.hidden = true;
              this.list.append(answer);
              draft = "";
              this.scroll();
              break;
            }
            case "tool-result":
              cards.get(String(e.callId))?.result(String(e.status), String(e.content));
              break;
            case "approval": {
              const card = cards.get(String(e.callId));
              const answerWith = (approved: boolean) => () => {
                void api("/api/approve", { stream: running.stream, callId: e.callId, approved });
                card?.result(approved ? "approved" : "denied", "");
              };
              card?.approval(
                h(
                  "div",
                  { class: "approval" },
                  h("span", {}, `Allow ${String(e.tool)} to run?`),
                  h("button", { class: "primary approve", onclick: answerWith(true) }, "Allow"),
                  alwaysAllowButton(String(e.tool), answerWith(true)),
                  h("button", { class: "deny", onclick: answerWith(false) }, "Deny"),
                ),
              );
              this.scroll();
              break;
            }
            case "notice":
              this.list.append(h("div", { class: "notice" }, String(e.text)));
              break;
            case "done": {
              const r = e.result as {
                text: string;
                stopReason: string;
                usage: { inputTokens: number; outputTokens: number };
              };
              draft = r.text;
              paint();
              answer.append(
                h(
                  "div",
                  { class: "meta" },
                  `${r.stopReason === "done" ? "" : `${r.stopReason} · `}${r.usage.inputTokens} in / ${r.usage.outputTokens} out tokens`,
                ),
              );
              break;
            }
            case "error":
              this.list.append(h("div", { class: "notice error" }, String(e.message)));
              break;
          }
        },
        running.abort.signal,
      );
    } catch (err) {
      if (!running.abort.signal.aborted) this.list.append(h("div", { class: "notice error" }, (err as Error).message));
      else this.list.append(h("div", { class: "notice" }, "stopped"));
    } finally {
      answer.classList.remove("streaming");
      if (!draft && !answer.querySelector(".meta")) answer.remove();
      this.running = null;
      this.send.hidden = false;
      this.stop.hidden = true;
      this.scroll();
      this.onTurnDone();
    }
  }
}
