/**
 * What `llm/models` answers: the configured model and what its provider lists. The listing is
 * cached per provider, URL and key, so a client polling /v1/models does not poll the provider;
 * a failed listing is not cached (the next ask tries again) and answers an empty list.
 */
import type { LlmModelsResult } from "../protocol/channel.ts";
import { listModels } from "../llm/list-models.ts";
import type { LlmSettings } from "./config/llm-settings.ts";
import type { Logger } from "./log.ts";

/** How long a provider's list is trusted: models come and go in days, not minutes. */
const CACHE_MS = 5 * 60 * 1000;

export class ProviderModels {
  private cached: { key: string; at: number; ids: string[] } | null = null;

  constructor(
    private readonly llm: Pick<LlmSettings, "connection">,
    private readonly log: Pick<Logger, "warn">,
    private readonly now: () => number = Date.now,
  ) {}

  async list(): Promise<LlmModelsResult> {
    const c = this.llm.connection();
    if (!c) return { configured: "", provider: [] };
    const key = `${c.kind}|${c.baseURL}|${c.apiKey}`;
    if (this.cached?.key === key && this.now() - this.cached.at < CACHE_MS)
      return { configured: c.model, provider: this.cached.ids };
    try {
      const ids = await listModels({ kind: c.kind, baseURL: c.baseURL, apiKey: c.apiKey });
      this.cached = { key, at: this.now(), ids };
      return { configured: c.model, provider: ids };
    } catch (err) {
      this.log.warn("listing the provider's models failed", { base_url: c.baseURL, err });
      return { configured: c.model, provider: [] };
    }
  }
}
