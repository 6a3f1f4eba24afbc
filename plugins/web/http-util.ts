/** Parsing request bodies at the HTTP boundary: valibot, with 4xx answers a person can act on. */
import * as v from "valibot";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { describeIssues } from "../../src/protocol/jsonrpc.ts";
import { firstBadUtf8 } from "../../src/shared/json-where.ts";

/**
 * Whether a Content-Type header says JSON: its media type (before any parameters, trimmed, any
 * case) is exactly application/json. A substring test would let a cross-site form post
 * `text/plain; a=application/json`, which browsers send without a CORS preflight.
 */
export function isJsonContentType(header: string | undefined): boolean {
  const [type = ""] = (header ?? "").split(";", 1);
  return type.trim().toLowerCase() === "application/json";
}

/** A request body that is not what JSON must be: why, for a 400 answer. */
export class BadBody extends Error {}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body parsed as JSON. JSON on the wire is UTF-8 (RFC 8259): bytes that are not are refused
 * with where they are, never turned into U+FFFD in silence. Throws BadBody.
 */
export async function jsonBody(c: Context): Promise<unknown> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new BadBody(`the body is not valid UTF-8 (at byte ${firstBadUtf8(bytes)}); send JSON encoded as UTF-8`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new BadBody("the body is not valid JSON");
  }
}

/** The JSON body checked against `schema`; 415, 400 or 422 with a clear message otherwise. */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  if (!isJsonContentType(c.req.header("content-type"))) {
    throw new HTTPException(415, { message: "send the body as JSON (Content-Type: application/json)" });
  }
  let raw: unknown;
  try {
    raw = await jsonBody(c);
  } catch (err) {
    throw new HTTPException(400, { message: err instanceof BadBody ? err.message : "the body could not be read" });
  }
  const r = v.safeParse(schema, raw);
  if (!r.success) throw new HTTPException(422, { message: `invalid request: ${describeIssues(r.issues)}` });
  return r.output;
}
