/**
 * sharp, loaded on first use. Its native addon needs libvips, which the compiled binary embeds
 * and loads first (preloadLibrary, like onnxruntime's library), so it works in `dist/homed` — in
 * the kernel (image embeddings) and in built-in plugins (the media plugin's OCR input) alike;
 * here in src/ipc because plugins may import it and the native loading lives here.
 */
import vipsLibrary from "../../node_modules/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.8.18.7" with {
  type: "file",
};
import { preloadLibrary } from "./native-lib.ts";

type Sharp = typeof import("sharp").default;
let sharp: Sharp | null = null;

export function sharpModule(): Sharp {
  if (!sharp) {
    preloadLibrary(vipsLibrary, "vips_init");
    const mod = require("sharp") as Sharp | { default: Sharp };
    sharp = typeof mod === "function" ? mod : mod.default;
  }
  return sharp;
}
