/**
 * The data path between the kernel and one plugin, the same on both sides: events, bulk
 * payloads, and their release. Two implementations: `ShmPluginLink` (rings and arenas in the
 * shared segment) and `StdioPluginLink` (base64 inside JSON-RPC frames, for plugins
 * in any language). Control (requests, replies) is JSON-RPC on stdio either way and is not
 * part of the link.
 *
 * A bulk reference from the other side is untrusted: `readBulk`/`releaseBulk` take `unknown`
 * and valibot-check it, and each link accepts only its own kind of reference.
 */
import * as v from "valibot";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { BulkRefSchema, EventParams, PluginMethod, type BulkRefFrame } from "../protocol/plugin.ts";
import type { ShmLink } from "./shm-link.ts";

export interface PluginLink {
  readonly transport: "shm" | "stdio";
  /** Send an event to the other side. */
  emit(type: number, payload: Uint8Array): Promise<void>;
  /** Hand bytes to the other side; the result is what a frame carries. */
  sendBulk(bytes: Uint8Array): Promise<BulkRefFrame>;
  /** Bytes the other side handed us. On shm a view into shared memory: release it when done. */
  readBulk(ref: unknown): Uint8Array;
  releaseBulk(ref: unknown): void;
  /**
   * A JSON-RPC notification that belongs to the link (stdio events). True when consumed, so
   * the owner passes everything else on.
   */
  takeNotification(method: string, params: unknown): boolean;
  close(): void;
}

/** Parse a bulk reference read from a frame (either kind). */
export function parseBulkRef(ref: unknown): BulkRefFrame {
  const r = v.safeParse(BulkRefSchema, ref);
  if (!r.success) throw new HomedError("invalid_params", `not a bulk reference: ${describeIssues(r.issues)}`);
  return r.output;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** Shared memory: events through the rings, bulk data in place in the arenas. */
export class ShmPluginLink implements PluginLink {
  readonly transport = "shm";
  /** The rings themselves, for callers that batch (`tryEmit`) or read statistics. */
  constructor(readonly shm: ShmLink) {}

  emit(type: number, payload: Uint8Array): Promise<void> {
    return this.shm.emit(type, payload);
  }

  sendBulk(bytes: Uint8Array): Promise<BulkRefFrame> {
    return this.shm.writeBulk(bytes);
  }

  readBulk(ref: unknown): Uint8Array {
    const r = parseBulkRef(ref);
    // Small payloads may still come inline from a peer that chose to: accept them.
    if ("b64" in r) return Buffer.from(r.b64, "base64");
    return this.shm.readBulk(r);
  }

  releaseBulk(ref: unknown): void {
    const r = parseBulkRef(ref);
    if ("off" in r) this.shm.releaseBulk(r);
  }

  takeNotification(): boolean {
    return false;
  }

  close(): void {
    this.shm.close();
  }
}

export interface StdioPluginLinkOptions {
  /** Send a JSON-RPC notification to the other side. */
  notify(method: string, params: unknown): void;
  /** Largest payload sent inline (bytes before base64); read at each send (hello may set it). */
  inlineBulkLimit(): number;
  onEvent(type: number, payload: Uint8Array): void;
  /** An `event` notification that does not parse: dropped, and said so. */
  onBadEvent(reason: string): void;
}

/** Inline: events are `event` notifications and bulk data is base64 in the frame. */
export class StdioPluginLink implements PluginLink {
  readonly transport = "stdio";
  constructor(private readonly opts: StdioPluginLinkOptions) {}

  async emit(type: number, payload: Uint8Array): Promise<void> {
    this.opts.notify(PluginMethod.Event, { type, data: base64(payload) });
  }

  async sendBulk(bytes: Uint8Array): Promise<BulkRefFrame> {
    const limit = this.opts.inlineBulkLimit();
    if (bytes.length > limit) {
      throw new HomedError(
        "invalid_params",
        `payload of ${bytes.length} bytes exceeds the stdio transport's inline limit of ${limit}`,
      );
    }
    return { b64: base64(bytes) };
  }

  readBulk(ref: unknown): Uint8Array {
    const r = parseBulkRef(ref);
    if (!("b64" in r)) throw new HomedError("invalid_params", "segment reference on the stdio transport");
    return Buffer.from(r.b64, "base64");
  }

  releaseBulk(ref: unknown): void {
    parseBulkRef(ref); // inline bytes need no release; a malformed reference is still an error
  }

  takeNotification(method: string, params: unknown): boolean {
    if (method !== PluginMethod.Event) return false;
    const p = v.safeParse(EventParams, params);
    if (p.success) this.opts.onEvent(p.output.type, Buffer.from(p.output.data, "base64"));
    else this.opts.onBadEvent(describeIssues(p.issues));
    return true;
  }

  close(): void {}
}
