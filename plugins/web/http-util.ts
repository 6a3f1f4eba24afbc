/** Parsing request bodies at the HTTP boundary: valibot, with 4xx answers a person can act on. */
import * as v from "valibot";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { describeIssues } from "../../src/protocol/jsonrpc.ts";

/**
 * Whether a Content-Type header says JSON: its media type (before any parameters, trimmed, any
 * case) is exactly application/json. A substring test would let a cross-site form post
 * `text/plain; a=application/json`, which browsers send without a CORS preflight.
 */
export function isJsonContentType(header: string | undefined): boolean {
  const [type = ""] = (header ?? "").split(";", 1);
  return type.trim().toLowerCase() === "application/json";
}

/** The JSON body checked against `schema`; 415, 400 or 422 with a clear message otherwise. */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  if (!isJsonContentType(c.req.header("content-type"))) {
    throw new HTTPException(415, { message: "send the body as JSON (Content-Type: application/json)" });
  }
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new HTTPException(400, { message: "the body is not valid JSON" });
  }
  const r = v.safeParse(schema, raw);
  if (!r.success) throw new HTTPException(422, { message: `invalid request: ${describeIssues(r.issues)}` });
  return r.output;
}
