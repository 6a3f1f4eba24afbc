/**
 * The chat pane: transcript, streaming reply, tool cards with approvals in place, stop button,
 * and per message: copy, edit and resend (a new message — the log keeps the original), retry
 * after an error; code blocks have their own copy button.
 */
import { alwaysAllowButton, conversationModelPicker } from "./settings.ts";
import { api, streamChat, watchChat } from "./api.ts";
import { clear, h } from "./dom.ts";
import { renderMarkdown } from "./markdown.ts";
import { MarkdownStream } from "./markdown-stream.ts";
import { copyText, copyButton, flash, usageText, bubble, toolCard } from "./chat-parts.ts";
import { AttachTray, type AttachmentView } from "./attach.ts";
import type { TranscriptItem } from "../../../src/protocol/channel.ts";
import type { ApproveBody, PageEvent, StreamBody } from "../../../src/protocol/web.ts";
import type { StreamEvent } from "../../../src/protocol/turn-stream.ts";
import type { ContextFigures } from "../../../src/protocol/context-figures.ts";

/** How the kernel's notice that untrusted text is in view begins (src/agent/turn-steps.ts). */
const MARK_NOTICE = "untrusted text is in view";

/** The reply bubble's body as a stream: settled blocks, then the tail being written. */
function streamInto(answer: HTMLElement): MarkdownStream {
  const done = h("div", { class: "md-done" });
  const tail = h("div", { class: "md-tail" });
  (answer.querySelector(".body") as HTMLElement).replaceChildren(done, tail);
  return new MarkdownStream(done, tail, renderMarkdown);
}

export class ChatPane {
  readonly el: HTMLElement;
  /** The drawn conversation (TurnView appends to it). */
  readonly list: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly stop: HTMLButtonElement;
  /** Files attached to the message being written (attach.ts). */
  private readonly tray = new AttachTray();
  /** The files of the person's last message, which Retry sends again with its words. */
  lastFiles: AttachmentView[] = [];
  /**
   * The turn this pane follows; `shown` once it is drawn as running (Stop in place of Send). Until
   * then it is only a look for a live turn (attach): one round trip, with Send still offered.
   */
  private running: { abort: AbortController; stream: string | null; shown: boolean } | null = null;
  /** Settles when the turn in flight (if any) has finished and the pane is ready for the next. */
  private finished: Promise<void> = Promise.resolve();
  private idle(): Promise<void> {
    return this.finished;
  }

  constructor(
    private conv: string,
    /**
     * The conversation list may have changed: a turn ended (it may have named the conversation),
     * or a new conversation's first turn waits on the person (it is in the log, so in the list).
     */
    private readonly onTurnDone: () => void,
  ) {
    this.list = h("div", { class: "messages", id: "messages" });
    this.input = h("textarea", { id: "prompt", rows: "2" });
    // The keys are said where there is room for them (and a keyboard to press them on).
    const wide = matchMedia("(min-width: 700px)");
    const hint = () => {
      this.input.placeholder = wide.matches
        ? "Message homed…  (Enter sends, Shift+Enter for a new line)"
        : "Message homed…";
    };
    hint();
    wide.addEventListener("change", hint);
    this.send = h("button", { id: "send", class: "primary", onclick: () => void this.submit() }, "Send");
    this.stop = h("button", { id: "stop", class: "danger", hidden: true, onclick: () => void this.cancel() }, "Stop");
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        void this.submit();
      }
    });
    // Code blocks arrive as rendered HTML; their copy buttons are answered here.
    this.list.addEventListener("click", (e) => {
      const b = (e.target as HTMLElement).closest(".copy-code");
      const code = b?.closest(".code")?.querySelector("code");
      if (b instanceof HTMLElement && code) void copyText(code.textContent ?? "").then(() => flash(b));
    });
    this.el = h(
      "section",
      { class: "chat" },
      this.list,
      conversationModelPicker(this.conv),
      this.tray.el,
      h("div", { class: "composer" }, this.tray.buttons, this.input, this.send, this.stop),
    );
    this.tray.listen(this.el);
  }

  /**
   * Copy on every message; Edit on the person's, Retry on a reply that failed (`clean`: the
   * failed turn did nothing, see retryButton).
   */
  actions(msg: HTMLElement, retryWith: string | null, clean = true): void {
    const bar = h(
      "div",
      { class: "msg-actions" },
      copyButton(() => msg.dataset.source ?? ""),
    );
    if (msg.classList.contains("user"))
      bar.append(
        h(
          "button",
          {
            type: "button",
            class: "small ghost msg-edit",
            title: "Edit and send as a new message (the original stays in the log)",
            onclick: () => this.edit(msg),
          },
          "Edit",
        ),
      );
    if (retryWith !== null) bar.append(this.retryButton(retryWith, clean));
    msg.append(bar);
  }

  /**
   * Send the message again. A failed turn that did nothing (no text, no tool call) goes from
   * the view with its error, so the message shows once — as the transcript shows it after a
   * reload (src/kernel/methods/channel.ts drops such a turn when the same message follows it),
   * and as the model reads it (a failed turn without output is never replayed). A turn that
   * did something stays: its tool calls happened.
   */
  retryButton(text: string, clean: boolean): HTMLButtonElement {
    const files = this.lastFiles;
    return h(
      "button",
      {
        type: "button",
        class: "small msg-retry",
        title: "Send the same message again",
        onclick: () =>
          void this.idle().then(() => {
            if (clean) this.dropFromLast(text);
            else for (const n of this.list.querySelectorAll(".notice.error")) n.remove();
            return this.submit(text, files);
          }),
      },
      "↻ Retry",
    );
  }

  /** Edit in place: the edited text is sent as a new message; the one shown stays as it was. */
  private edit(msg: HTMLElement): void {
    if (msg.querySelector(".edit-box")) return;
    const area = h("textarea", { class: "edit-area", rows: "3" });
    area.value = msg.dataset.source ?? "";
    const box = h(
      "div",
      { class: "edit-box" },
      area,
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "small ghost edit-cancel", onclick: () => box.remove() }, "Cancel"),
        h(
          "button",
          {
            type: "button",
            class: "small primary edit-send",
            onclick: () => {
              const text = area.value.trim();
              if (!text) return;
              box.remove();
              void this.idle().then(() => this.submit(text));
            },
          },
          "Send",
        ),
      ),
    );
    msg.append(box);
    area.focus();
  }

  /** Draw the conversation from its stored turns: their events, folded as a live turn's are. */
  async load(): Promise<void> {
    clear(this.list);
    const items = await api<TranscriptItem[]>(`/api/conversations/${encodeURIComponent(this.conv)}`).catch(() => []);
    let turn = new TurnView(this, null, false);
    for (const it of items) {
      const e = it.event as StreamEvent;
      if (e.type === "turn-start") {
        turn.end();
        turn = new TurnView(this, null, false);
      }
      turn.apply(e);
    }
    turn.end();
    if (!items.length)
      this.list.append(h("div", { class: "empty" }, "Ask anything. Tools the agent uses show up here as they run."));
    this.scroll();
    this.input.focus();
    void this.attach();
  }

  scroll(): void {
    this.list.scrollTop = this.list.scrollHeight;
  }

  private async cancel(): Promise<void> {
    const r = this.running;
    if (!r) return;
    // The page keeps following the turn until the kernel has wound it down, so every card ends
    // as it really did (a stopped tool says "cancelled"); without a stream id, just stop reading.
    if (
      !r.stream ||
      !(await api("/api/cancel", { stream: r.stream } satisfies StreamBody).then(
        () => true,
        () => false,
      ))
    )
      r.abort.abort();
  }

  /** Send `resend` (Retry, Edit) or what the composer holds. */
  private async submit(resend?: string, again: AttachmentView[] = []): Promise<void> {
    // Send pressed while the pane still looks for a live turn (on opening, after each turn)
    // waits for the answer: the message goes after a turn found running, or now, never lost.
    while (this.running && !this.running.shown) await this.idle();
    const text = resend ?? this.input.value.trim();
    // Uploads still running are waited for: the person pressed Send with them in the tray.
    if (this.running || (resend === undefined && this.tray.busy())) return;
    const files = resend === undefined ? this.tray.take() : again;
    if (!text && !files.length) return;
    this.lastFiles = files;
    if (resend === undefined) this.input.value = "";
    this.list.querySelector(".empty")?.remove();
    const mine = bubble("user", text, files);
    this.actions(mine, null);
    this.list.append(mine);
    const attachments = files.map((f) => ({ sha256: f.sha256, ...(f.name ? { name: f.name } : {}) }));
    const body = { conv: this.conv, text, attachments };
    await this.follow((_c, onEvent, signal) => streamChat(body, onEvent, signal).then(() => true), text);
  }

  /**
   * Show the conversation's live turn, if one is running (started by an earlier page, another
   * tab): what the transcript already holds of it is replaced by the turn's own stream.
   */
  private async attach(): Promise<void> {
    if (this.running) return;
    await this.follow(watchChat, null);
  }

  /**
   * Draw a turn's events as they come: `sent` is the person's message when this page sent it
   * (drawn already), null when attaching to a live turn, whose header and start say what it was.
   */
  private async follow(
    open: (conv: string, onEvent: (e: PageEvent) => void, signal: AbortSignal) => Promise<boolean>,
    sent: string | null,
  ): Promise<void> {
    const turn = new TurnView(this, sent, true);
    const running = { abort: new AbortController(), stream: null as string | null, shown: false };
    this.running = running;
    let settle = () => {};
    this.finished = new Promise((resolve) => {
      settle = resolve;
    });
    const begin = () => {
      running.shown = true;
      this.send.hidden = true;
      this.stop.hidden = false;
    };
    if (sent !== null) begin();
    let attached = false;
    let listed = false;
    try {
      attached = await open(
        this.conv,
        (e) => {
          if (e.type === "stream") {
            running.stream = e.stream;
            if (sent === null) {
              // The log already holds the turn's start (its message, tool calls so far): drop
              // that copy from the view, the replay that follows draws it again.
              if (e.started) this.dropFromLast(e.text);
              this.list.querySelector(".empty")?.remove();
              begin();
            }
            return;
          }
          // A new chat waiting on its first approval belongs in the sidebar already.
          if (e.type === "approval" && !listed) {
            listed = true;
            this.onTurnDone();
          }
          turn.apply(e, running.stream);
        },
        running.abort.signal,
      );
    } catch (err) {
      attached = true;
      if (!running.abort.signal.aborted) turn.failed((err as Error).message);
      else this.list.append(h("div", { class: "notice" }, "stopped"));
    } finally {
      turn.end();
      this.running = null;
      settle();
      this.send.hidden = false;
      this.stop.hidden = true;
      this.scroll();
      if (attached) this.onTurnDone();
    }
    // A conversation's next turn may have been waiting in line behind this one.
    if (attached) void this.attach();
  }

  /**
   * A notice of the turn; the one that says untrusted text is in view (src/agent/turn-steps.ts
   * markFromContext) offers to trust it: the conversation's mark is cleared, and the log says so.
   */
  notice(text: string): HTMLElement {
    const el = h("div", { class: "notice" }, text);
    if (!text.startsWith(MARK_NOTICE)) return el;
    const trust = h(
      "button",
      {
        class: "clear-mark",
        title: "I have read it: stop asking about side effects because of the text so far",
        onclick: () => {
          trust.setAttribute("disabled", "");
          void api(`/api/conversations/${encodeURIComponent(this.conv)}/clear-mark`, {}).then(
            () => trust.replaceWith(h("b", { class: "mark-cleared" }, "— you trusted it: the mark is cleared")),
            (err: Error) => trust.replaceWith(h("span", { class: "error" }, err.message)),
          );
        },
      },
      "Trust this text",
    );
    el.append(" ", trust);
    return el;
  }

  /** Remove the last bubble of the person's `text` and everything after it. */
  private dropFromLast(text: string): void {
    const mine = [...this.list.querySelectorAll<HTMLElement>(".msg.user")]
      .filter((n) => n.dataset.source === text)
      .at(-1);
    if (!mine) return;
    while (mine.nextSibling) mine.nextSibling.remove();
    mine.remove();
  }
}

/**
 * One turn as the pane draws it: its events folded into the person's message, the reply (as it
 * streams, or whole from history), tool cards with their approvals and results, notices, and the
 * line that says what the reply cost and what memory brought. The same fold draws a live turn
 * and a stored one (`live`: the reply streams, a card stays open while it runs); a kind it does
 * not know is skipped.
 */
class TurnView {
  /** The person's message, for Retry. */
  private text: string;
  /** The reply being written, once there is one: its bubble and its body; a tool call closes it. */
  private answer: HTMLElement | null = null;
  private reply: MarkdownStream | null = null;
  /** The turn wrote text or called a tool: a Retry after its failure keeps it in view. */
  private produced = false;
  private prompt: ContextFigures | null = null;
  private readonly cards = new Map<string, ReturnType<typeof toolCard>>();

  /** `sent`: the person's message when this page sent it and drew it already. */
  constructor(
    private readonly pane: ChatPane,
    private sent: string | null,
    private readonly live: boolean,
  ) {
    this.text = sent ?? "";
  }

  /** The reply's bubble, made at the end of the pane when the first of its text comes. */
  private replying(): { answer: HTMLElement; reply: MarkdownStream } {
    if (!this.answer || !this.reply) {
      this.answer = bubble("assistant", "");
      if (this.live) this.answer.classList.add("streaming");
      this.pane.list.append(this.answer);
      this.reply = streamInto(this.answer);
    }
    return { answer: this.answer, reply: this.reply };
  }

  /** The reply so far ("" before any). */
  private get written(): string {
    return this.reply?.value ?? "";
  }

  /** The reply is complete: the next text is another model call's, in a bubble of its own. */
  private closeReply(): void {
    this.reply?.finish();
    if (this.answer && !this.written) this.answer.remove();
    this.answer?.classList.remove("streaming");
    [this.answer, this.reply] = [null, null];
  }

  apply(e: StreamEvent, stream: string | null = null): void {
    switch (e.type) {
      case "turn-start": {
        const words = e.text ?? "";
        const files = e.attachments ?? [];
        this.text = words;
        this.pane.lastFiles = files;
        // This page drew the message when it sent it.
        if (this.sent !== null && this.sent === words) break;
        this.sent = null;
        if (!words && !files.length) break;
        this.pane.list.querySelector(".empty")?.remove();
        const mine = bubble("user", words, files);
        this.pane.actions(mine, null);
        this.pane.list.append(mine);
        break;
      }
      case "text-delta":
        if (!e.text) break;
        this.produced = true;
        this.replying().reply.append(e.text);
        this.pane.scroll();
        break;
      case "text-replace":
        this.replying().reply.set(e.text);
        this.pane.scroll();
        break;
      case "tool-call": {
        this.produced = true;
        this.closeReply();
        const c = toolCard(e.name, e.arguments);
        if (!this.live) c.el.removeAttribute("open");
        this.cards.set(e.callId, c);
        this.pane.list.append(c.el);
        this.pane.scroll();
        break;
      }
      case "tool-result":
        this.cards.get(e.callId)?.result(e.status, e.content, e.images ?? []);
        break;
      case "approval":
        this.ask(e, stream);
        break;
      case "approval-answered":
        // Answered here or on another page.
        this.cards.get(e.callId)?.result(e.approved ? "approved" : "denied", "");
        break;
      case "notice":
        this.pane.list.append(this.pane.notice(e.text));
        break;
      case "context":
        this.prompt = e;
        break;
      case "done": {
        const r = e.result;
        const { answer, reply } = this.replying();
        if (r.text !== reply.value) reply.set(r.text);
        reply.finish();
        answer.classList.remove("streaming");
        // A turn stopped before any text: no empty bubble, just how it ended.
        if (!r.text) answer.querySelector(".body")?.remove();
        answer.dataset.source = r.text;
        // A reply says what it cost (none for one imported from another app), and how it ended when not normally.
        const spent = r.usage.inputTokens + r.usage.outputTokens > 0;
        const how = spent ? usageText(r.usage, r.stopReason) : r.stopReason === "done" ? "" : stopped(r.stopReason);
        const meta = how + contextText(this.prompt);
        if (meta) answer.append(h("div", { class: "meta" }, meta.replace(/^ · /, "")));
        const again = this.text || this.pane.lastFiles.length;
        this.pane.actions(answer, r.stopReason === "error" && again ? this.text : null, !this.produced);
        // Done: a later event of this turn (none should come) would start a new bubble.
        [this.answer, this.reply] = [null, null];
        this.pane.scroll();
        break;
      }
      case "error":
        this.failed(e.message);
        break;
    }
  }

  /** The turn failed before it had a result: said with a Retry. */
  failed(message: string): void {
    this.pane.list.append(
      h("div", { class: "notice error" }, message, " ", this.pane.retryButton(this.text, !this.produced)),
    );
  }

  /** The turn is over (or its history read): no empty reply bubble stays. */
  end(): void {
    this.closeReply();
  }

  /** An approval question on its tool's card, answered from here with `stream`. */
  private ask(e: Extract<StreamEvent, { type: "approval" }>, stream: string | null): void {
    const card = this.cards.get(e.callId);
    const answerWith =
      (approved: boolean, scope: "call" | "conversation" = "call") =>
      () => {
        if (stream) void api("/api/approve", { stream, callId: e.callId, approved, scope } satisfies ApproveBody);
        card?.result(approved ? "approved" : "denied", "");
      };
    card?.approval(
      h(
        "div",
        { class: "approval" },
        h("span", {}, `Allow ${e.tool} to run?`),
        ...(e.note !== undefined ? [h("span", { class: "approval-note" }, e.note)] : []),
        h("button", { class: "primary approve", onclick: answerWith(true) }, "Allow"),
        h(
          "button",
          {
            class: "approve-conversation",
            title: `Allow ${e.tool} for the rest of this conversation, untrusted text in view or not`,
            onclick: answerWith(true, "conversation"),
          },
          "Allow in this conversation",
        ),
        alwaysAllowButton(e.tool, answerWith(true)),
        h("button", { class: "deny", onclick: answerWith(false) }, "Deny"),
      ),
    );
    this.pane.scroll();
  }
}

/** How a turn ended when not normally, in words. */
const stopped = (reason: string) => (reason === "cancelled" ? "stopped" : reason.replace(/_/g, " "));

/** What memory put before the model, after a reply's token counts: " · context ~3.1k of 128k tokens · …". */
function contextText(c: ContextFigures | null): string {
  if (!c) return "";
  const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k` : String(n));
  const parts = [
    `context ~${k(c.tokens)} of ${k(c.window)} tokens`,
    ...(c.messages ? [`${c.messages} earlier message${c.messages === 1 ? "" : "s"}`] : []),
    ...(c.recalled ? ["older turns recalled"] : []),
    ...(c.across ? ["other conversations quoted"] : []),
  ];
  return ` · ${parts.join(" · ")}`;
}
