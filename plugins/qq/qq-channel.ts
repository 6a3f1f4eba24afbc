/**
 * The QQ channel: OneBot v11 message events in, turns through the kernel's chat/send, replies out
 * as send_group_msg / send_private_msg quoting the message they answer. One conversation per group
 * and per private peer (`qq:group_<id>`, `qq:private_<id>`, scene `chan:qq/peer:<same>`); the
 * kernel queues a conversation's turns. Group input is untrusted and answered only when homed is
 * @-mentioned or a keyword starts the message, within the group's rate limit; private input is
 * trusted only from the owners, who may also answer approval questions with y or n.
 */
import * as v from "valibot";
import { type AttachmentRef, MAX_ATTACHMENTS } from "../../src/protocol/attachments.ts";
import type { ApprovalQuestion } from "../../src/protocol/turn-stream.ts";
import type { QqConfig } from "./settings.ts";
import type { Plugin } from "../sdk/index.ts";
import { PrivateApprovals } from "./approvals.ts";
import { parseCq } from "./cq-code.ts";
import { mentions, messageText, plainText, splitReply } from "./message-text.ts";
import { MessageEvent, MetaEvent, type Segment } from "./onebot.ts";
import { PeerRateLimit } from "./rate-limit.ts";
import type { OneBotTransport } from "./transport.ts";

interface Target {
  kind: "group" | "private";
  id: number;
  messageId: number;
  interactive: boolean;
  asked: string[];
}

export class QqChannel {
  private readonly limit: PeerRateLimit;
  private readonly approvals = new PrivateApprovals();
  private seq = 0;

  constructor(
    private readonly plugin: Plugin,
    private readonly cfg: QqConfig,
    private readonly transport: () => OneBotTransport,
  ) {
    this.limit = new PeerRateLimit(cfg.group_turns_per_minute);
  }

  /** One event from the implementation, unparsed. Never throws: a bad event is logged and dropped. */
  event(raw: unknown): void {
    const meta = v.safeParse(MetaEvent, raw);
    if (meta.success) {
      if (meta.output.meta_event_type === "lifecycle")
        this.plugin.log.info("qq lifecycle", { self_id: meta.output.self_id, sub_type: meta.output.sub_type ?? "" });
      return;
    }
    if ((raw as { post_type?: unknown }).post_type !== "message") return; // notices, requests, our own sent messages
    const msg = v.safeParse(MessageEvent, raw);
    if (!msg.success) {
      this.plugin.log.warn("qq message event malformed; dropped", { issue: msg.issues[0]?.message ?? "" });
      return;
    }
    this.message(msg.output).catch((err) =>
      this.plugin.log.error("qq message not handled", { err: (err as Error).message }),
    );
  }

  private async message(m: MessageEvent): Promise<void> {
    if (m.user_id === m.self_id) return;
    const segments: Segment[] =
      typeof m.message === "string" ? parseCq(m.message) : m.message.map((s) => ({ type: s.type, data: s.data ?? {} }));
    const c = this.cfg;
    let target: Target;
    let untrusted: boolean;
    let speaker = "";
    if (m.message_type === "private") {
      const owner = c.owners.includes(m.user_id);
      if (owner && this.approvals.answer(m.user_id, plainText(segments))) return;
      if (!owner && c.strangers === "ignore") return this.ignore("stranger", m);
      target = { kind: "private", id: m.user_id, messageId: m.message_id, interactive: owner, asked: [] };
      untrusted = !owner;
      // Strangers share the groups' limit, each on their own; the owners are never limited.
      if (!owner && !(await this.withinLimit(`private_${m.user_id}`, target, m))) return;
    } else {
      const group = m.group_id;
      if (group === undefined) return this.ignore("group message without group_id", m);
      if (c.groups.length > 0 && !c.groups.includes(group)) return this.ignore("group not listed", m);
      const text = plainText(segments);
      if (!mentions(segments, m.self_id) && !c.keywords.some((k) => text.startsWith(k)))
        return this.ignore("not addressed", m);
      target = { kind: "group", id: group, messageId: m.message_id, interactive: false, asked: [] };
      if (!(await this.withinLimit(`group_${group}`, target, m))) return;
      untrusted = true;
      const name = m.sender.card || m.sender.nickname || "";
      speaker = `${name ? `${name} ` : ""}(QQ ${m.user_id}): `;
    }
    const attachments: AttachmentRef[] = [];
    const body = await messageText(segments, {
      plugin: this.plugin,
      selfId: m.self_id,
      maxImageBytes: c.max_image_kb * 1024,
      attachments,
    });
    if (!body) return this.ignore("empty", m);
    await this.turn(target, speaker + body, untrusted, attachments);
  }

  /** Take a turn slot of `peer`; over the limit, say so once per window and return false. */
  private async withinLimit(peer: string, target: Target, m: MessageEvent): Promise<boolean> {
    const slot = this.limit.take(peer);
    if (slot === "ok") return true;
    this.ignore("rate limit", m);
    if (slot === "tell")
      await this.send(target, `(at most ${this.cfg.group_turns_per_minute} per minute here; please wait a little)`);
    return false;
  }

  private ignore(why: string, m: MessageEvent): void {
    this.plugin.log.debug("qq message ignored", {
      why,
      type: m.message_type,
      user: m.user_id,
      group: m.group_id ?? "",
    });
  }

  private async turn(
    target: Target,
    text: string,
    untrusted: boolean,
    attachments: AttachmentRef[] = [],
  ): Promise<void> {
    const peer = `${target.kind}_${target.id}`;
    let reply: string;
    try {
      const r = await this.plugin.turns.send(
        {
          conv: `qq:${peer}`,
          text,
          ...(attachments.length ? { attachments: attachments.slice(0, MAX_ATTACHMENTS) } : {}),
          channel: "qq",
          untrusted,
          scene: `chan:qq/peer:${peer}`,
          interactive: target.interactive,
        },
        { event: () => {}, approve: (q) => this.approve(target, q) },
        { stream: `qq-${++this.seq}` },
      );
      const failed = r.stopReason === "error" || (!r.text && r.error !== undefined);
      // A failed turn's text is the kernel's account of the failure: the owner's to read, not a group's.
      if (!failed) reply = r.text;
      else if (untrusted) reply = this.failure(peer, r.error ?? r.text, true);
      else reply = r.text || this.failure(peer, r.error ?? "", false);
    } catch (err) {
      reply = this.failure(peer, (err as Error).message, untrusted);
    } finally {
      if (target.kind === "private") this.approvals.drop(target.id, target.asked);
    }
    if (reply) await this.send(target, reply);
  }

  /** What a failed turn answers: the reason to the owner, only that it failed to others (it is logged). */
  private failure(peer: string, error: string, untrusted: boolean): string {
    this.plugin.log.warn("qq turn failed", { peer, err: error });
    return untrusted ? "(homed could not answer just now)" : `(homed could not answer: ${error})`;
  }

  /** Send `text` to the target, split to the configured size, the first part quoting the question. */
  private async send(target: Target, text: string): Promise<void> {
    const parts = splitReply(text, this.cfg.max_message_chars);
    for (const [i, part] of parts.entries()) {
      const message: Segment[] = [
        ...(i === 0 ? [{ type: "reply", data: { id: String(target.messageId) } }] : []),
        { type: "text", data: { text: part } },
      ];
      const [action, key] = target.kind === "group" ? ["send_group_msg", "group_id"] : ["send_private_msg", "user_id"];
      try {
        await this.transport().call(action, { [key]: target.id, message });
      } catch (err) {
        this.plugin.log.error("qq reply not sent", { to: `${target.kind}_${target.id}`, err: (err as Error).message });
        return;
      }
    }
  }

  /** A question of one of our turns: only the owner's private turns are asked (the others are not interactive). */
  private async approve(target: Target, q: ApprovalQuestion): Promise<boolean> {
    if (target.kind !== "private" || !target.interactive) return false;
    const args = JSON.stringify(q.arguments) ?? "";
    target.asked.push(q.callId);
    const answer = this.approvals.ask(target.id, q.callId);
    await this.send(
      target,
      `homed wants to run ${q.tool} ${args.length > 500 ? `${args.slice(0, 500)}…` : args}${q.note ? ` (${q.note})` : ""}\nReply y to allow, n to deny.`,
    );
    return await answer;
  }
}
