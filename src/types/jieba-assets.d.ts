/** jieba's dictionary and the concept lexicon, imported `with { type: "file" }`: their paths (embedded when compiled). */
declare module "*/dict.txt" {
  const path: string;
  export default path;
}
declare module "*/lexicon.txt" {
  const path: string;
  export default path;
}
