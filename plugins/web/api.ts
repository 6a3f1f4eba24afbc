/** /api: what the web UI uses. Everything it knows comes from the kernel over RPC. */
import * as v from "valibot";
import { type Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import {
  ChannelMethod,
  ContextView,
  LlmModelsResult,
  ConversationSummary,
  ClearMarkResult,
  ForgetResult,
  MemoryHit,
  TranscriptItem,
} from "../../src/protocol/channel.ts";
import { LlmSetParams, LlmSettingsView, LlmTestResult, StatusResult } from "../../src/protocol/control.ts";
import { PluginInfo, PluginList, PluginMethod } from "../../src/protocol/plugin.ts";
import {
  AllowToolParams,
  ReloadResult,
  SettingsMethod,
  SettingsPatch,
  SettingsSaveResult,
  SettingsView,
} from "../../src/protocol/settings.ts";
import type { Plugin } from "../sdk/index.ts";
import type { ChatHub } from "./chat-hub.ts";
import { exportJson, exportMarkdown } from "./conversation-export.ts";
import { readJson } from "./http-util.ts";
import { blockResponse } from "./blocks-route.ts";
import { sceneRoutes } from "./scenes-routes.ts";
import { l3Routes } from "./l3-routes.ts";
import { skillRoutes } from "./skills-routes.ts";
import { getBlock } from "../sdk/blocks.ts";
import { LiveTurns } from "./live-turns.ts";
import { tooManyAttempts, type Security } from "./security.ts";
import { cleanName, prepareUpload, readUploadBody, storeUpload } from "./uploads.ts";
import { ApproveBody, ChatBody, ConvId, LiveQuery, StreamBody, type WebSession } from "../../src/protocol/web.ts";

const SearchQuery = v.object({
  q: v.pipe(v.string("q is required"), v.trim(), v.minLength(1, "q is empty"), v.maxLength(500)),
});
const ModelBody = v.strictObject({ model: v.pipe(v.string(), v.maxLength(200)) });
const RenameBody = v.strictObject({ title: v.pipe(v.string(), v.maxLength(200)) });
const ExportQuery = v.object({ format: v.optional(v.picklist(["md", "json"], "format is md or json"), "md") });
const LoginBody = v.strictObject({ token: v.pipe(v.string(), v.maxLength(1000)) });

export function apiRoutes(plugin: Plugin, hub: ChatHub, security: Security): Hono {
  const api = new Hono();
  const live = new LiveTurns(hub);

  api.get("/session", async (c) => {
    const session: WebSession = {
      exposed: security.exposed,
      authenticated: !security.loginRequired || (await security.authenticated(c)),
    };
    return c.json(session);
  });
  api.post("/login", async (c) => {
    const { token } = await readJson(c, LoginBody);
    const r = await security.login(c, token);
    if (r.result === "blocked") return tooManyAttempts(c, r.retryAfter);
    return r.result === "ok" ? c.json({ ok: true }) : c.json({ error: "wrong token" }, 401);
  });

  api.get("/status", async (c) => c.json(await plugin.call(PluginMethod.KernelStatus, {}, StatusResult)));
  api.get("/conversations", async (c) =>
    c.json(await plugin.call(ChannelMethod.ConversationsList, {}, v.array(ConversationSummary))),
  );
  api.get("/conversations/:id", async (c) => {
    const conv = v.parse(ConvId, c.req.param("id"));
    return c.json(await plugin.call(ChannelMethod.ConversationsMessages, { conv }, v.array(TranscriptItem)));
  });
  api.post("/conversations/:id/rename", async (c) => {
    const conv = v.parse(ConvId, c.req.param("id"));
    const { title } = await readJson(c, RenameBody);
    return c.json(await plugin.call(ChannelMethod.ConversationsRename, { conv, title }, v.object({ ok: v.boolean() })));
  });
  // The model this conversation runs on from now on, in every channel ("" = the configured one).
  api.post("/conversations/:id/model", async (c) => {
    const conv = v.parse(ConvId, c.req.param("id"));
    const { model } = await readJson(c, ModelBody);
    return c.json(
      await plugin.call(
        ChannelMethod.ConversationsModel,
        { conv, channel: "web", model },
        v.object({ model: v.nullable(v.string()) }),
      ),
    );
  });
  // Forget: hidden and out of recall; the kernel keeps the events (the log is append-only).
  api.post("/conversations/:id/forget", async (c) => {
    const conv = v.parse(ConvId, c.req.param("id"));
    return c.json(await plugin.call(ChannelMethod.ConversationsForget, { conv }, ForgetResult));
  });
  // The person trusts the untrusted text in view so far: side effects stop asking because of it (logged).
  api.post("/conversations/:id/clear-mark", async (c) => {
    const conv = v.parse(ConvId, c.req.param("id"));
    return c.json(await plugin.call(ChannelMethod.ConversationsClearMark, { conv, by: "web" }, ClearMarkResult));
  });
  api.get("/conversations/:id/export", async (c) => {
    const conv = v.parse(ConvId, c.req.param("id"));
    const { format } = v.parse(ExportQuery, { format: c.req.query("format") });
    const [list, items] = await Promise.all([
      plugin.call(ChannelMethod.ConversationsList, {}, v.array(ConversationSummary)),
      plugin.call(ChannelMethod.ConversationsMessages, { conv, limit: 5000 }, v.array(TranscriptItem)),
    ]);
    const summary = list.find((s) => s.id === conv) ?? null;
    const name = conv.replace(/[^A-Za-z0-9._-]/g, "_");
    const disposition = (ext: string) => `attachment; filename="homed-${name}.${ext}"`;
    return format === "json"
      ? c.body(exportJson(conv, summary, items), 200, {
          "content-type": "application/json; charset=utf-8",
          "content-disposition": disposition("json"),
        })
      : c.body(exportMarkdown(conv, summary, items), 200, {
          "content-type": "text/markdown; charset=utf-8",
          "content-disposition": disposition("md"),
        });
  });
  api.get("/context/:id", async (c) => {
    const conv = v.parse(ConvId, c.req.param("id"));
    return c.json(await plugin.call(ChannelMethod.ContextGet, { conv }, ContextView));
  });

  // Everything the person may see (the kernel decides the scope); behind the token like all of /api.
  api.get("/memory/search", async (c) => {
    const { q } = v.parse(SearchQuery, { q: c.req.query("q") });
    return c.json(await plugin.call(ChannelMethod.MemorySearch, { query: q }, v.array(MemoryHit)));
  });

  // A turn belongs to its conversation, not to this response: a page that goes away stops
  // watching, and the turn runs on (live-turns.ts). Only /api/cancel stops it.
  api.post("/chat", async (c) => {
    const body = await readJson(c, ChatBody);
    if (!body.text.trim() && body.attachments.length === 0) return c.json({ error: "message is empty" }, 422);
    let model: string | undefined;
    if (body.model !== undefined) {
      const m = await hub.models();
      if (body.model !== m.configured && !m.provider.includes(body.model))
        return c.json({ error: `the provider does not offer the model ${body.model}` }, 404);
      if (body.model !== m.configured) model = body.model;
    }
    const scene = `chan:web/peer:${body.client}`;
    return watchSse(c, live, live.start(body.conv, body.text, { model, scene, attachments: body.attachments }));
  });
  // One file (the raw body; ?name= its file name): typed by its bytes, images shaped, stored as
  // a block. The answer names the block for /api/chat's attachments (uploads.ts).
  api.post("/uploads", async (c) => {
    const name = cleanName(c.req.query("name"), "attachment");
    const prepared = await prepareUpload(await readUploadBody(c.req.raw), name);
    return c.json(await storeUpload(plugin, prepared, name));
  });
  // The conversation's live turn from the start, then as it runs; 204 when none is running.
  api.get("/chat/live", async (c) => {
    const { conv } = v.parse(LiveQuery, { conv: c.req.query("conv") });
    const stream = live.of(conv);
    // From the event after `from` (the last one the page saw), or from the start.
    const from = Number(c.req.query("from") ?? c.req.header("last-event-id") ?? 0);
    return stream ? watchSse(c, live, stream, Number.isSafeInteger(from) && from > 0 ? from : 0) : c.body(null, 204);
  });
  api.post("/approve", async (c) => {
    const b = await readJson(c, ApproveBody);
    return (await live.answer(b.stream, b.callId, b.approved, b.scope))
      ? c.json({ ok: true })
      : c.json({ error: "no question is waiting for that answer" }, 404);
  });
  api.post("/cancel", async (c) => c.json({ cancelled: await hub.cancel((await readJson(c, StreamBody)).stream) }));

  api.get("/provider", async (c) => c.json(await plugin.call(ChannelMethod.LlmGet, {}, LlmSettingsView)));
  api.post("/provider", async (c) =>
    c.json(await plugin.call(ChannelMethod.LlmSet, await readJson(c, LlmSetParams), LlmSettingsView)),
  );
  // `{}`: the settings in force; settings: those, tested without being saved.
  api.post("/provider/test", async (c) =>
    c.json(await plugin.call(ChannelMethod.LlmTest, await readJson(c, LlmSetParams), LlmTestResult)),
  );

  // The settings beyond the provider: written to DATA/settings.json and applied at once; the
  // answer says what needs a restart. A bad value is a 400 with config.toml's message.
  api.get("/settings", async (c) => c.json(await plugin.call(SettingsMethod.Get, {}, SettingsView)));
  api.post("/settings", async (c) =>
    c.json(await plugin.call(SettingsMethod.Set, await readJson(c, SettingsPatch), SettingsSaveResult)),
  );
  api.post("/settings/allow-tool", async (c) =>
    c.json(await plugin.call(SettingsMethod.AllowTool, await readJson(c, AllowToolParams), SettingsSaveResult)),
  );
  api.post("/settings/reload", async (c) => c.json(await plugin.call(SettingsMethod.Reload, {}, ReloadResult)));
  api.get("/models", async (c) => c.json(await plugin.call(ChannelMethod.LlmModels, {}, LlmModelsResult)));

  sceneRoutes(api, plugin);
  l3Routes(api, plugin);
  skillRoutes(api, plugin);
  api.get("/blocks/:sha256", (c) => blockResponse(plugin.hello.dataDir, c.req.param("sha256"), c.req.query("name")));
  // A block record by id (blocks/get without its bytes) and where its bytes are served.
  api.get("/block-records/:id", async (c) => {
    const { block } = await getBlock(plugin, Number(c.req.param("id")), { bytes: false });
    return c.json({ block, url: block.sha256 ? `/api/blocks/${block.sha256}` : null });
  });
  api.get("/plugins", async (c) => c.json(await plugin.call(PluginMethod.List, {}, PluginList)));
  api.post("/plugins/:name/restart", async (c) =>
    c.json(await plugin.call(PluginMethod.Restart, { name: c.req.param("name") }, PluginInfo)),
  );

  return api;
}

/** A live turn's events as server-sent events until it ends or the client goes away. */
function watchSse(c: Context, live: LiveTurns, stream: string, from = 0): Response {
  return streamSSE(c, async (sse) => {
    // Writes are chained and the chain awaited before the stream closes: a write still pending
    // when the callback returns would be dropped (the final "done" event with it). Each event's
    // SSE id is its number in the turn, so a page can come back from where it was.
    let chain = Promise.resolve();
    const w = live.watch(stream, from, (e) => {
      const msg =
        "header" in e
          ? { data: JSON.stringify(e.header) }
          : "refused" in e
            ? { data: JSON.stringify({ type: "error", message: e.refused }) }
            : { id: String(e.seq), data: JSON.stringify(e.event) };
      chain = chain.then(() => sse.writeSSE(msg)).catch(() => {});
    });
    let gone = () => {};
    const away = new Promise<void>((r) => (gone = r));
    sse.onAbort(() => {
      w.unwatch();
      gone();
    });
    await Promise.race([w.ended, away]);
    w.unwatch();
    await chain;
  });
}
