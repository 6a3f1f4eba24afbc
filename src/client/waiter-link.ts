/**
 * waiter's link to one homed: the local daemon's control socket, or a remote homed's web API
 * (remote-link.ts). Both give the TUI and `waiter -p` the same things — the status (plugins), the
 * conversation list and transcripts, turns with streamed events and approval questions, Stop,
 * and "always allow" — so neither knows which one it talks to.
 */
import * as v from "valibot";
import { ConversationSummary, TranscriptItem } from "../protocol/channel.ts";
import { ControlMethod, StatusResult, type TurnResultView } from "../protocol/control.ts";
import { HomedError } from "../protocol/errors.ts";
import { SettingsSaveResult } from "../protocol/settings.ts";
import { ChatConnection, type ChatHandlers } from "./chat-connection.ts";

/** The scene a local waiter declares for the conversations it starts. */
export const WAITER_SCENE = "chan:cli/peer:waiter";
/** The channel a local waiter's turns are on (the same as `homed chat`'s: a person at a terminal). */
export const WAITER_CHANNEL = "cli";

export interface WaiterLink {
  /** Where it goes, for the title bar and errors: a data dir or a URL. */
  readonly where: string;
  status(): Promise<StatusResult>;
  conversations(): Promise<ConversationSummary[]>;
  messages(conv: string): Promise<TranscriptItem[]>;
  /** Run a turn; its events and questions reach the handlers given when the link was opened. */
  send(text: string, conv: string): Promise<TurnResultView>;
  /** Follow the conversation's running turn, if any (null: none runs). */
  attach(conv: string): Promise<TurnResultView | null>;
  /** Stop the turns this link runs or follows; how many there were. */
  cancel(): Promise<number>;
  /** "Always": this tool no longer asks (`approval_allow`). */
  allowTool(tool: string): Promise<void>;
  /** Called once when the link is lost (the daemon stopped); a remote link has no connection to lose. */
  onClose(fn: () => void): () => void;
  close(): void;
}

/** Opens a link with the handlers for its turns' events and approval questions. */
export type OpenLink = (handlers: ChatHandlers) => Promise<WaiterLink>;

/** The local daemon on data dir `dir`, over its control socket `socket`. */
export function localLink(dir: string, socket: string): OpenLink {
  return async (handlers) => {
    const conn = await ChatConnection.open(socket, handlers, "waiter").catch((err: unknown) => {
      if (err instanceof HomedError && err.code === "not_running")
        throw new HomedError(
          "not_running",
          `homed is not running on ${dir} (${err.message.replace(/^homed is not running \((.*)\)$/, "$1")})`,
        );
      throw err;
    });
    return {
      where: dir,
      status: () => conn.call(ControlMethod.Status, {}, StatusResult),
      conversations: () => conn.call(ControlMethod.ConversationsList, {}, v.array(ConversationSummary)),
      messages: (conv) => conn.call(ControlMethod.ConversationsMessages, { conv }, v.array(TranscriptItem)),
      send: (text, conv) => conn.send(text, conv, { channel: WAITER_CHANNEL, scene: WAITER_SCENE }),
      attach: (conv) => conn.attach(conv),
      cancel: () => conn.cancel(),
      allowTool: async (tool) => void (await conn.call(ControlMethod.ApprovalAllow, { tool }, SettingsSaveResult)),
      onClose: (fn) => conn.onClose(fn),
      close: () => conn.close(),
    };
  };
}
