/** jieba's dictionary and the concept lexicon, zstd-compressed and imported `with { type: "file" }`: their paths (embedded when compiled). */
declare module "*.zst" {
  const path: string;
  export default path;
}
