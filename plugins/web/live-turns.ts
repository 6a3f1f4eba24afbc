/**
 * Web turns that outlive the page. A turn started from the UI belongs to the conversation, not
 * to the HTTP response that started it: a page that reloads or closes only stops watching, and
 * the turn runs to its end unless someone presses Stop. Any page may watch a live turn: it is
 * sent the turn's header, then the turn's stream from the kernel (from the start, or from the
 * event it saw last), and it sees (and may answer) the approval questions still open. The
 * events themselves are kept once, by the kernel (src/kernel/turn-streams.ts).
 */
import type { AttachmentRef } from "../../src/protocol/attachments.ts";
import type { ApprovalScope, StreamEvent } from "../../src/protocol/turn-stream.ts";
import type { LiveTurnHeader } from "../../src/protocol/web.ts";
import type { ChatHub } from "./chat-hub.ts";

/**
 * What a page is sent (PageFrame): the header, one event of the turn with its number, or why the turn could
 * not start at all (the kernel refused it: there is no stream to carry the reason).
 */
export type PageFrame = { header: LiveTurnHeader } | { seq: number; event: StreamEvent } | { refused: string };

interface LiveTurn {
  stream: string;
  conv: string;
  text: string;
  /** The files sent with the message (a page that attaches later shows them too). */
  attachments: AttachmentRef[];
  /** The turn began running (it may have waited behind another of its conversation). */
  started: boolean;
  /** The kernel refused to run it (set before `ended` resolves). */
  refused?: string;
  ended: Promise<void>;
}

export class LiveTurns {
  /** Live turns by stream id, oldest first (a conversation's later turns wait in the kernel's queue). */
  private readonly turns = new Map<string, LiveTurn>();

  constructor(private readonly hub: ChatHub) {}

  /**
   * Start a turn of `conv`; it runs to its end whoever watches. `model`: this conversation's
   * model when it is not the configured one (already checked); `scene`: the scene it declares.
   */
  start(
    conv: string,
    text: string,
    opts: { model?: string; scene?: string; attachments?: AttachmentRef[] } = {},
  ): string {
    const stream = crypto.randomUUID();
    let end = () => {};
    const turn: LiveTurn = {
      stream,
      conv,
      text,
      attachments: opts.attachments ?? [],
      started: false,
      ended: new Promise<void>((r) => (end = r)),
    };
    this.turns.set(stream, turn);
    const over = () => {
      this.turns.delete(stream);
      end();
    };
    this.hub
      .run(
        stream,
        conv,
        text,
        {
          interactive: true,
          event: (e) => {
            if (e.type === "turn-start") turn.started = true;
            // Over with its last event: the frames reach us before any page's copy, so a page
            // that saw the end and asks for the live turn is not sent this one again.
            if (e.type === "done" || e.type === "error") over();
          },
        },
        "web",
        {
          // The pages follow the turn with chat/watch: the sender needs only its start and end.
          follow: "ends",
          ...(opts.model === undefined ? {} : { model: opts.model }),
          ...(opts.scene === undefined ? {} : { scene: opts.scene }),
          ...(opts.attachments?.length ? { attachments: opts.attachments } : {}),
        },
      )
      // How it ended is the stream's last event (done or error), which the pages are sent; a
      // turn the kernel refused before it had a stream has only this.
      .catch((err: Error) => {
        if (!turn.started) turn.refused = err.message;
      })
      .finally(over);
    return stream;
  }

  /** The oldest live turn of `conv`, or null. */
  of(conv: string): string | null {
    for (const t of this.turns.values()) if (t.conv === conv) return t.stream;
    return null;
  }

  /**
   * Send `onEvent` the turn's header (LiveTurnHeader, src/protocol/web.ts), then its events
   * numbered above `from` and each new one; resolves when the turn has ended (at once if it
   * already has). `unwatch` stops the events without touching the turn.
   */
  watch(stream: string, from: number, onEvent: (e: PageFrame) => void): { ended: Promise<void>; unwatch: () => void } {
    const t = this.turns.get(stream);
    if (!t) return { ended: Promise.resolve(), unwatch: () => {} };
    onEvent({
      header: { type: "stream", stream, conv: t.conv, text: t.text, attachments: t.attachments, started: t.started },
    });
    const watch = crypto.randomUUID();
    let watching = true;
    let sawEnd = false;
    const followed = this.hub
      .watch(
        { conv: t.conv, stream },
        from,
        {
          event: (event, seq) => {
            if (event.type === "done" || event.type === "error") sawEnd = true;
            if (watching) onEvent({ seq, event });
          },
        },
        watch,
      )
      .catch(() => null);
    const ended = followed.then(async (r) => {
      if (r !== null || sawEnd) return;
      await t.ended;
      if (watching && t.refused !== undefined) onEvent({ refused: t.refused });
    });
    return {
      ended,
      unwatch: () => {
        if (!watching) return;
        watching = false;
        void this.hub.unwatch(watch).catch(() => {});
      },
    };
  }

  /** A person's answer, from any page; every page watching is told by the turn's stream. */
  answer(stream: string, callId: string, approved: boolean, scope?: ApprovalScope): Promise<boolean> {
    const t = this.turns.get(stream);
    return t ? this.hub.answer(t.conv, callId, approved, scope) : Promise.resolve(false);
  }
}
