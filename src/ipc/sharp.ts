/**
 * sharp, loaded so that it works in the compiled binary too: its native addon needs libvips,
 * which the binary embeds and loads first (like onnxruntime's library) through native-lib.ts.
 * Loaded on first use only. Here, beside native-lib.ts, so the embedder (src/embed/image.ts) and
 * plugins (the web plugin's uploads) share the one loader.
 */
import vipsLibrary from "../../node_modules/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.8.18.7" with {
  type: "file",
};
import { preloadLibrary } from "./native-lib.ts";

type Sharp = typeof import("sharp").default;
let sharp: Sharp | null = null;

/** The sharp module, with libvips loaded. */
export function sharpModule(): Sharp {
  if (!sharp) {
    preloadLibrary(vipsLibrary, "vips_init");
    const mod = require("sharp") as Sharp | { default: Sharp };
    sharp = typeof mod === "function" ? mod : mod.default;
  }
  return sharp;
}
