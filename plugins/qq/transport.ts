/**
 * How homed reaches a OneBot v11 implementation: three transports with one face. Each delivers
 * events to `onEvent` (unparsed: the channel checks them) and carries API calls.
 */
import type { PluginLogger } from "../sdk/index.ts";

export interface OneBotTransport {
  /** Call an API action; resolves with its data, rejects when it failed or nobody is connected. */
  call(action: string, params: Record<string, unknown>): Promise<unknown>;
  /** Begin connecting or listening; rejects only on a configuration problem (port taken). */
  start(): Promise<void>;
  stop(): void;
}

export interface TransportOptions {
  url: string;
  host: string;
  port: number;
  accessToken: string;
  /** The HMAC key of X-Signature on HTTP-POST reports ("" = no check). */
  secret: string;
  reconnectMs: number;
  onEvent(event: unknown): void;
  log: PluginLogger;
}

/** `Authorization: Bearer <token>`, or nothing when there is no token. */
export function authHeaders(token: string): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}
