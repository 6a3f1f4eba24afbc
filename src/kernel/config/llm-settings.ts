/**
 * Which model the agent talks to, and with which key. One precedence, field by field: what
 * DATA/llm.json sets (written by `homed provider` and the web UI, only the fields they were given),
 * else config.toml's [llm] (with its HOMED_LLM_* overrides), else the default. A base URL belongs
 * to its provider: config.toml's applies only while its provider is the one in use, and a new
 * provider without a base URL gets its official one. `view()` says where each value came from.
 * API keys live only in DATA/secrets.json (0600), one per provider and base URL; they are never
 * logged and never returned in full — `view()` shows the last four characters.
 */
import * as v from "valibot";
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../../protocol/errors.ts";
import { describeIssues } from "../../protocol/jsonrpc.ts";
import type {
  LlmSettingField,
  LlmSettingSource,
  LlmSettingsView,
  LlmSetParams,
  LlmTestResult,
} from "../../protocol/control.ts";
import { createLanguageModel, maskKey } from "../../llm/provider.ts";
import { ImageRefusals } from "../../llm/image-fallback.ts";
import type { LanguageModel, ProviderKind } from "../../llm/types.ts";
import type { ProviderMetrics } from "../../llm/metered.ts";
import { ConfigSchema, type Config } from "./config.ts";
import type { Logger } from "../log.ts";

export const DEFAULT_BASE_URL: Record<ProviderKind, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
};

/** DATA/llm.json: only the fields set at run time (older files hold all of them). */
const Runtime = v.object({
  provider: v.optional(v.picklist(["openai", "anthropic"])),
  base_url: v.optional(v.string()),
  model: v.optional(v.string()),
  context_window: v.optional(v.number()),
  max_output_tokens: v.optional(v.number()),
});
type Runtime = v.InferOutput<typeof Runtime>;

const Secrets = v.object({ keys: v.optional(v.record(v.string(), v.string()), {}) });

/** config.toml's [llm] when it says nothing: what "default" means in `sources`. */
const DEFAULT_LLM = v.parse(ConfigSchema, {}).llm;

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
  /** Models that refused tool-result images (`[llm] images = "auto"`), for the daemon's life. */
  private readonly imageRefusals = new ImageRefusals();

  constructor(
    dataDir: string,
    private readonly config: Config,
    private readonly log: Logger,
    /** Told of every request the models built here make (the daemon's metrics); absent: nobody is. */
    private readonly metrics?: ProviderMetrics,
  ) {
    this.runtimeFile = join(dataDir, "llm.json");
    this.secretsFile = join(dataDir, "secrets.json");
    // Not silent: a config.toml edit that llm.json outweighs is named in the log at start.
    const shadowed = this.effective().shadowed;
    if (Object.keys(shadowed).length > 0)
      this.log.warn("llm.json overrides config.toml [llm]", {
        fields: Object.keys(shadowed).join(","),
        hint: "homed provider shows each value and its source",
      });
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

  /** The effective settings (llm.json over config.toml over defaults), without the key. */
  private effective(): {
    provider: ProviderKind | "";
    baseURL: string;
    model: string;
    contextWindow: number;
    maxOutputTokens: number;
    source: "config" | "runtime";
    sources: Record<LlmSettingField, LlmSettingSource>;
    shadowed: Partial<Record<LlmSettingField, string>>;
  } {
    const c = this.config.llm;
    const d = DEFAULT_LLM;
    const r = this.runtime() ?? {};
    const sources = {} as Record<LlmSettingField, LlmSettingSource>;
    const shadowed: Partial<Record<LlmSettingField, string>> = {};
    /** llm.json's value, else config.toml's when it is not the default, else the default. */
    const pick = <T extends string | number>(field: LlmSettingField, run: T | undefined, conf: T, def: T): T => {
      const fromConf = conf !== def;
      if (run !== undefined) {
        sources[field] = "llm.json";
        if (fromConf && conf !== run) shadowed[field] = String(conf);
        return run;
      }
      sources[field] = fromConf ? "config.toml" : "default";
      return conf;
    };
    const provider = pick("provider", r.provider, c.provider, d.provider);
    // config.toml's base URL is for config.toml's provider; another provider starts from its own.
    const confURL = c.base_url && c.provider === provider ? c.base_url : "";
    let baseURL = pick("baseURL", r.base_url || undefined, confURL, "");
    if (!baseURL) {
      baseURL = provider ? DEFAULT_BASE_URL[provider] : "";
      sources.baseURL = "default";
    }
    return {
      provider,
      baseURL: baseURL.replace(/\/+$/, ""),
      model: pick("model", r.model, c.model, d.model),
      contextWindow: pick("contextWindow", r.context_window, c.context_window, d.context_window),
      maxOutputTokens: pick("maxOutputTokens", r.max_output_tokens, c.max_output_tokens, d.max_output_tokens),
      source: Object.keys(r).length > 0 ? "runtime" : "config",
      sources,
      shadowed,
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

  /**
   * Change the provider settings at run time: the fields given are written to llm.json, the
   * rest keep their value. A new key replaces the stored one for that provider and URL; without
   * one, a new base URL for the same provider takes the key along.
   */
  set(p: LlmSetParams): LlmSettingsView {
    const before = this.effective();
    const runtime: Runtime = { ...(this.runtime() ?? {}) };
    const provider = p.provider ?? before.provider;
    if (!provider)
      throw new HomedError("invalid_params", "no provider is set yet: give the provider (openai or anthropic) too");
    const newProvider = p.provider !== undefined && p.provider !== before.provider;
    if (newProvider && p.model === undefined && before.model)
      throw new HomedError(
        "invalid_params",
        `changing the provider to ${provider} needs a model too (${before.model} is ${before.provider}'s)`,
      );
    if (p.baseURL !== undefined) {
      const url = (p.baseURL || DEFAULT_BASE_URL[provider]).replace(/\/+$/, "");
      if (!/^https?:\/\/\S+$/.test(url)) throw new HomedError("invalid_params", `base URL must be http(s): ${url}`);
      runtime.base_url = url;
    } else if (newProvider) {
      // The old base URL served the old provider: the new one starts from its official URL.
      runtime.base_url = DEFAULT_BASE_URL[provider];
    }
    if (p.provider !== undefined) runtime.provider = p.provider;
    if (p.model !== undefined) runtime.model = p.model;
    if (p.contextWindow !== undefined) runtime.context_window = p.contextWindow;
    if (p.maxOutputTokens !== undefined) runtime.max_output_tokens = p.maxOutputTokens;
    writePrivate(this.runtimeFile, `${JSON.stringify(runtime, null, 2)}\n`, 0o600);
    const after = this.effective();
    const keys = this.secrets();
    const id = keyId(provider, after.baseURL);
    let keysChanged = false;
    if (p.apiKey !== undefined) {
      if (p.apiKey === "") delete keys[id];
      else keys[id] = p.apiKey;
      keysChanged = true;
    } else if (!newProvider && before.provider && keys[id] === undefined) {
      const old = keys[keyId(before.provider, before.baseURL)];
      if (old !== undefined) {
        keys[id] = old;
        keysChanged = true;
      }
    }
    if (keysChanged) {
      // The file's other entries (named secret values) are not ours to drop.
      let rest: Record<string, unknown> = {};
      try {
        const raw: unknown = existsSync(this.secretsFile) ? JSON.parse(readFileSync(this.secretsFile, "utf8")) : {};
        if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) rest = raw as Record<string, unknown>;
      } catch {
        rest = {};
      }
      writePrivate(this.secretsFile, `${JSON.stringify({ ...rest, keys }, null, 2)}\n`, 0o600);
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
   * `set`, then `test` the result; when the test fails, the settings and keys are put back as
   * they were (llm.json and secrets.json byte for byte), so a mistyped URL or key never replaces
   * settings that worked. The view returned is of the settings in force afterwards.
   */
  async setTested(
    p: LlmSetParams,
    test: () => Promise<LlmTestResult>,
  ): Promise<{ view: LlmSettingsView; test: LlmTestResult; kept: boolean }> {
    const files = [this.runtimeFile, this.secretsFile];
    const saved = files.map((f) => (existsSync(f) ? readFileSync(f, "utf8") : null));
    this.set(p);
    const result = await test();
    if (result.ok) return { view: this.view(), test: result, kept: true };
    files.forEach((f, i) => {
      const text = saved[i];
      if (text === null || text === undefined) rmSync(f, { force: true });
      else writePrivate(f, text, 0o600);
    });
    this.cached = null;
    this.log.info("llm provider test failed; the earlier settings are back", { reason: result.message });
    return { view: this.view(), test: result, kept: false };
  }

  /**
   * The model to use now — the configured one, or `modelId` of the same provider (an API client
   * chose one the provider lists) — or a sentence saying why there is none.
   */
  model(modelId?: string): LanguageModel | string {
    const c = this.connection();
    if (!c) return "No model provider is configured yet. Open the web UI or run `homed provider` to add one.";
    const name = modelId ?? c.model;
    const images = this.config.llm.images;
    const id = `${c.kind}|${c.baseURL}|${name}|${c.apiKey}|${images}`;
    if (this.cached?.key === id) return this.cached.model;
    const model = createLanguageModel(
      { kind: c.kind, baseURL: c.baseURL, model: name, apiKey: c.apiKey, idleTimeoutMs: this.config.llm.timeout_ms },
      { maxRetries: this.config.llm.max_retries },
      { mode: images, refusals: this.imageRefusals },
      this.metrics,
    );
    // Only the configured model is kept: another one is built per turn (cheap: no connection).
    if (modelId === undefined) this.cached = { key: id, model };
    return model;
  }

  /**
   * The model `p` describes over the settings in force, built without saving anything (the
   * settings page's Test before Save): an omitted key is the one `set` would keep, an empty one
   * none. A sentence instead when `p` names no provider or model.
   */
  candidate(p: LlmSetParams): LanguageModel | string {
    const e = this.effective();
    const kind = p.provider ?? e.provider;
    if (!kind) return "Give the provider (openai or anthropic) to test.";
    const model = p.model ?? (kind === e.provider ? e.model : "");
    if (!model) return "Give the model to test.";
    const sameProvider = kind === e.provider;
    const baseURL = (
      p.baseURL || (sameProvider && p.baseURL === undefined ? e.baseURL : DEFAULT_BASE_URL[kind])
    ).replace(/\/+$/, "");
    if (!/^https?:\/\/\S+$/.test(baseURL)) return `The base URL must be http(s): ${baseURL}`;
    // As `set` would keep it: the key stored for that URL, else (same provider) the one in force.
    const stored =
      this.secrets()[keyId(kind, baseURL)] ?? (sameProvider && e.provider ? this.apiKey(e.provider, e.baseURL) : "");
    const apiKey = p.apiKey ?? stored;
    return createLanguageModel(
      { kind, baseURL, model, apiKey, idleTimeoutMs: this.config.llm.timeout_ms },
      // One try: a test says what happens now, not after the retries a turn would make.
      { maxRetries: 0 },
      { mode: this.config.llm.images, refusals: this.imageRefusals },
      this.metrics,
    );
  }

  /** Where the configured provider is and its key (kernel-internal: never sent to a plugin), or null. */
  connection(): { kind: ProviderKind; baseURL: string; model: string; apiKey: string } | null {
    const e = this.effective();
    if (!e.provider || !e.model) return null;
    return { kind: e.provider, baseURL: e.baseURL, model: e.model, apiKey: this.apiKey(e.provider, e.baseURL) };
  }
}
