/** Talking to the web plugin from the page: JSON with the CSRF header, and the turn's event stream. */
import { parseSse } from "../../../src/shared/sse.ts";
import type { ChatBody, PageEvent } from "../../../src/protocol/web.ts";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let onUnauthorized: () => void = () => {};
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

export async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-homed": "1", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  if (res.status === 401 && path !== "/api/login") onUnauthorized();
  const data = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) throw new ApiError(res.status, data.error ?? `${res.status} ${res.statusText}`);
  return data as T;
}

/** POST a turn and hand each server-sent event (JSON) to `onEvent` until the stream ends. */
export async function streamChat(body: ChatBody, onEvent: (e: PageEvent) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch("/api/chat", {
    method: "POST",
    headers: { "x-homed": "1", "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  await readEvents(res, onEvent);
}

/**
 * Watch the conversation's live turn (what it streamed so far, then the rest) until it ends;
 * false when no turn of `conv` is running.
 */
export async function watchChat(conv: string, onEvent: (e: PageEvent) => void, signal: AbortSignal): Promise<boolean> {
  const res = await fetch(`/api/chat/live?conv=${encodeURIComponent(conv)}`, { headers: { "x-homed": "1" }, signal });
  if (res.status === 204) return false;
  await readEvents(res, onEvent);
  return true;
}

async function readEvents(res: Response, onEvent: (e: PageEvent) => void): Promise<void> {
  if (!res.ok || !res.body) {
    const data = (await res.json().catch(() => ({}))) as { error?: string };
    if (res.status === 401) onUnauthorized();
    throw new ApiError(res.status, data.error ?? `${res.status}`);
  }
  for await (const e of parseSse(res.body)) onEvent(JSON.parse(e.data) as PageEvent);
}
