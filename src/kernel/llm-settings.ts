/**
 * Which model the agent talks to, and with which key. Settings come from config.toml's [llm],
 * overridden at run time (web UI, `homed provider`) by DATA/llm.json. API keys live only in
 * DATA/secrets.json (0600), one per provider and base URL; they are never logged and never
 * returned in full — `view()` shows the last four characters.
 */
import * as v from "valibot";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import type { LlmSettingsView, LlmSetParams } from "../protocol/control.ts";
import { createLanguageModel, maskKey } from "../llm/provider.ts";
import type { LanguageModel, ProviderKind } from "../llm/types.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";

export const DEFAULT_BASE_URL: Record<ProviderKind, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
};

const Runtime = v.object({
  provider: v.picklist(["openai", "anthropic"]),
  base_url: v.string(),
  model: v.string(),
  context_window: v.optional(v.number()),
  max_output_tokens: v.optional(v.number()),
});
type Runtime = v.InferOutput<typeof Runtime>;

const Secrets = v.object({ keys: v.optional(v.record(v.string(), v.string()), {}) });

const keyId = (kind: string, baseURL: string) => `${kind} ${baseURL.replace(/\/+$/, "")}`;

/** Write a file atomically (temp + rename) with the given mode. */
function writePrivate(path: string, text: string, mode: number): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

export class LlmSettings {
  private readonly runtimeFile: string;
  private readonly secretsFile: string;
  private cached: { key: string; model: LanguageModel } | null = null;

  constructor(
    dataDir: string,
    private readonly config: Config,
    private readonly log: Logger,
  ) {
    this.runtimeFile = join(dataDir, "llm.json");
    this.secretsFile = join(dataDir, "secrets.json");
  }

  private runtime(): Runtime | null {
    if (!existsSync(this.runtimeFile)) return null;
    try {
      const r = v.safeParse(Runtime, JSON.parse(readFileSync(this.runtimeFile, "utf8")));
      if (r.success) return r.output;
      this.log.warn("llm.json ignored", { reason: describeIssues(r.issues) });
    } catch (err) {
      this.log.warn("llm.json ignored", { err });
    }
    return null;
  }

  private secrets(): Record<string, string> {
    if (!existsSync(this.secretsFile)) return {};
    try {
      const r = v.safeParse(Secrets, JSON.parse(readFileSync(this.secretsFile, "utf8")));
      if (r.success) return r.output.keys;
      this.log.warn("secrets.json is malformed; no API keys loaded", { reason: describeIssues(r.issues) });
    } catch (err) {
      this.log.warn("secrets.json is unreadable; no API keys loaded", { err: (err as Error).message });
    }
    return {};
  }

  /** The effective settings (runtime file over config.toml), without the key. */
  private effective(): {
    provider: ProviderKind | "";
    baseURL: string;
    model: string;
    contextWindow: number;
    maxOutputTokens: number;
    source: "config" | "runtime";
  } {
    const c = this.config.llm;
    const r = this.runtime();
    const provider = r?.provider ?? c.provider;
    const baseURL = r?.base_url || c.base_url || (provider ? DEFAULT_BASE_URL[provider] : "");
    return {
      provider,
      baseURL,
      model: r?.model ?? c.model,
      contextWindow: r?.context_window ?? c.context_window,
      maxOutputTokens: r?.max_output_tokens ?? c.max_output_tokens,
      source: r ? "runtime" : "config",
    };
  }

  private apiKey(provider: string, baseURL: string): string {
    return this.secrets()[keyId(provider, baseURL)] ?? "";
  }

  view(): LlmSettingsView {
    const e = this.effective();
    const key = e.provider ? this.apiKey(e.provider, e.baseURL) : "";
    return { ...e, keyHint: maskKey(key), hasKey: key !== "", configured: e.provider !== "" && e.model !== "" };
  }

  get contextWindow(): number {
    return this.effective().contextWindow;
  }

  get maxOutputTokens(): number {
    return this.effective().maxOutputTokens;
  }

  /** Change the provider at run time; a new key replaces the stored one for that provider and URL. */
  set(p: LlmSetParams): LlmSettingsView {
    const baseURL = (p.baseURL || DEFAULT_BASE_URL[p.provider]).replace(/\/+$/, "");
    if (!/^https?:\/\/\S+$/.test(baseURL))
      throw new HomedError("invalid_params", `base URL must be http(s): ${baseURL}`);
    const runtime: Runtime = {
      provider: p.provider,
      base_url: baseURL,
      model: p.model,
      context_window: p.contextWindow,
      max_output_tokens: p.maxOutputTokens,
    };
    writePrivate(this.runtimeFile, `${JSON.stringify(runtime, null, 2)}\n`, 0o600);
    if (p.apiKey !== undefined) {
      const keys = this.secrets();
      if (p.apiKey === "") delete keys[keyId(p.provider, baseURL)];
      else keys[keyId(p.provider, baseURL)] = p.apiKey;
      writePrivate(this.secretsFile, `${JSON.stringify({ keys }, null, 2)}\n`, 0o600);
    }
    this.cached = null;
    const view = this.view();
    this.log.info("llm provider set", {
      provider: view.provider,
      base_url: view.baseURL,
      model: view.model,
      key: view.keyHint || "none",
    });
    return view;
  }

  /**
   * The model to use now — the configured one, or `modelId` of the same provider (an API client
   * chose one the provider lists) — or a sentence saying why there is none.
   */
  model(modelId?: string): LanguageModel | string {
    const c = this.connection();
    if (!c) return "No model provider is configured yet. Open the web UI or run `homed provider` to add one.";
    const name = modelId ?? c.model;
    const id = `${c.kind}|${c.baseURL}|${name}|${c.apiKey}`;
    if (this.cached?.key === id) return this.cached.model;
    const model = createLanguageModel(
      { kind: c.kind, baseURL: c.baseURL, model: name, apiKey: c.apiKey, idleTimeoutMs: this.config.llm.timeout_ms },
      { maxRetries: this.config.llm.max_retries },
    );
    // Only the configured model is kept: another one is built per turn (cheap: no connection).
    if (modelId === undefined) this.cached = { key: id, model };
    return model;
  }

  /** Where the configured provider is and its key (kernel-internal: never sent to a plugin), or null. */
  connection(): { kind: ProviderKind; baseURL: string; model: string; apiKey: string } | null {
    const e = this.effective();
    if (!e.provider || !e.model) return null;
    return { kind: e.provider, baseURL: e.baseURL, model: e.model, apiKey: this.apiKey(e.provider, e.baseURL) };
  }
}
