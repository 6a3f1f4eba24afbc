/**
 * /api/facts: the Knowledge page's view of the stable graph (L3) — facts with provenance, a
 * fact's superseded history, the person's corrections and deletions, a preview of what a turn
 * would recall, and "distill now". Everything goes through the kernel's l3/* methods.
 */
import * as v from "valibot";
import type { Hono } from "hono";
import {
  FactView,
  L3DistillResult,
  L3FactsResult,
  L3HistoryResult,
  L3Method,
  L3RecallResult,
} from "../../src/protocol/l3.ts";
import type { Plugin } from "../sdk/index.ts";
import { readJson } from "./http-util.ts";

const FactId = v.pipe(
  v.string(),
  v.regex(/^[1-9][0-9]{0,15}$/, "a fact id is a positive integer"),
  v.transform(Number),
);
const CorrectBody = v.strictObject({ object: v.pipe(v.string(), v.maxLength(200)) });
const DeleteBody = v.strictObject({ reason: v.optional(v.pipe(v.string(), v.maxLength(500)), "") });
const Query = v.pipe(v.string(), v.maxLength(200));

export function l3Routes(api: Hono, plugin: Plugin): void {
  api.get("/facts", async (c) => {
    const query = v.parse(Query, c.req.query("q") ?? "");
    const params = {
      query,
      includeSuperseded: c.req.query("superseded") === "1",
      includeHidden: c.req.query("hidden") === "1",
    };
    return c.json(await plugin.call(L3Method.Facts, params, L3FactsResult));
  });
  api.get("/facts/recall", async (c) => {
    const query = v.parse(
      v.pipe(v.string(), v.minLength(1, "q is required"), v.maxLength(2000)),
      c.req.query("q") ?? "",
    );
    return c.json(await plugin.call(L3Method.Recall, { query }, L3RecallResult));
  });
  // A run asks the model batch after batch (with backoff): far longer than an ordinary call.
  api.post("/facts/distill", async (c) => {
    const raw = await plugin.request(L3Method.Distill, {}, { timeoutMs: 15 * 60_000 });
    return c.json(v.parse(L3DistillResult, raw));
  });
  api.get("/facts/:id/history", async (c) => {
    const id = v.parse(FactId, c.req.param("id"));
    return c.json(await plugin.call(L3Method.History, { id }, L3HistoryResult));
  });
  api.post("/facts/:id/correct", async (c) => {
    const id = v.parse(FactId, c.req.param("id"));
    const { object } = await readJson(c, CorrectBody);
    return c.json(await plugin.call(L3Method.Correct, { id, object }, FactView));
  });
  api.post("/facts/:id/delete", async (c) => {
    const id = v.parse(FactId, c.req.param("id"));
    const { reason } = await readJson(c, DeleteBody);
    return c.json(await plugin.call(L3Method.Delete, { id, reason }, v.object({ hidden: v.boolean() })));
  });
}
