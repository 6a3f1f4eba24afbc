/**
 * The models a provider lists (OpenAI's `GET /models`, Anthropic's `GET /v1/models`), ids only.
 * One bounded request; every failure is an LlmError, so a caller can shrug it off.
 */
import * as v from "valibot";
import { ANTHROPIC_VERSION } from "./anthropic.ts";
import { httpError, trimBase } from "./http.ts";
import { LlmError, type ProviderSettings } from "./types.ts";

/** Both providers answer `{ data: [{ id }, …] }`; anything else in it is not ours to check. */
const ModelList = v.object({ data: v.array(v.looseObject({ id: v.pipe(v.string(), v.minLength(1)) })) });

/** A listing is a small GET: past this it is not coming. */
const LIST_TIMEOUT_MS = 10_000;

/** The ids the provider at `settings` lists, in its order. */
export async function listModels(settings: Omit<ProviderSettings, "model">): Promise<string[]> {
  const base = trimBase(settings.baseURL);
  const anthropic = settings.kind === "anthropic";
  const url = anthropic ? `${base}/v1/models?limit=1000` : `${base}/models`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (settings.apiKey !== "") {
    if (anthropic) headers["x-api-key"] = settings.apiKey;
    else headers.authorization = `Bearer ${settings.apiKey}`;
  }
  if (anthropic) headers["anthropic-version"] = ANTHROPIC_VERSION;
  let res: Response;
  try {
    res = await (settings.fetch ?? fetch)(url, { headers, signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
  } catch (err) {
    throw new LlmError("network", `listing models at ${url} failed: ${(err as Error).message}`);
  }
  const body = await res.text();
  if (!res.ok) throw httpError({ ...settings, model: "" }, url, res.status, body);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new LlmError("bad_response", `${settings.kind} provider sent a model list that is not JSON`);
  }
  const r = v.safeParse(ModelList, json);
  if (!r.success) throw new LlmError("bad_response", `${settings.kind} provider sent a malformed model list`);
  return r.output.data.map((m) => m.id);
}
