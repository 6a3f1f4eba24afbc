/**
 * The images of an OpenAI chat-completions request (image_url parts with data: URLs) stored as
 * blocks the way an upload is (uploads.ts: typed by their bytes, decoded within the pixel limit,
 * upright, shrunk, without metadata): the new message's become its attachments, the history's
 * are named on their messages so the model sees them again. The same image sent again in every
 * request of a stateless client is the same block (content-addressed), stored once.
 */
import type { ClientMessage } from "../../src/protocol/channel.ts";
import { HTTPException } from "hono/http-exception";
import { MAX_ATTACHMENTS } from "../../src/protocol/attachments.ts";
import type { ImageMime } from "../../src/protocol/images.ts";
import type { Plugin } from "../sdk/index.ts";
import type { SplitRequest } from "./openai-wire.ts";
import { dataUrlBytes, prepareUpload, storeUpload } from "./uploads.ts";

/** Images of one request, new and past together. */
const MAX_REQUEST_IMAGES = 16;

async function store(plugin: Plugin, url: string, name: string) {
  const prepared = await prepareUpload(dataUrlBytes(url), name);
  if (prepared.mime.split("/")[0] !== "image")
    throw new HTTPException(400, { message: `${name} is not an image (its bytes are ${prepared.mime})` });
  return storeUpload(plugin, prepared, name);
}

/** The request's history with its images named, and the new message's attachments. */
export async function storeRequestImages(
  plugin: Plugin,
  split: SplitRequest,
): Promise<{ history: ClientMessage[]; attachments: { sha256: string; name: string }[] }> {
  const count = split.images.length + [...split.historyImages.values()].reduce((n, l) => n + l.length, 0);
  if (count > MAX_REQUEST_IMAGES || split.images.length > MAX_ATTACHMENTS)
    throw new HTTPException(400, {
      message: `at most ${MAX_ATTACHMENTS} images in the new message and ${MAX_REQUEST_IMAGES} in a request`,
    });
  const history = [...split.history];
  for (const [i, urls] of split.historyImages) {
    const m = history[i];
    if (m?.role !== "user") continue;
    const images = [];
    for (const [j, url] of urls.entries()) {
      const r = await store(plugin, url, `image-${i + 1}-${j + 1}`);
      images.push({ sha256: r.sha256, mime: r.mime as ImageMime });
    }
    history[i] = { ...m, images };
  }
  const attachments = [];
  for (const [j, url] of split.images.entries()) {
    const r = await store(plugin, url, `image-${j + 1}`);
    attachments.push({ sha256: r.sha256, name: r.name });
  }
  return { history, attachments };
}
