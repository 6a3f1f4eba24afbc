/** Files imported `with { type: "file" }` resolve to their path (an embedded /$bunfs path when compiled). */
declare module "*.so" {
  const path: string;
  export default path;
}
declare module "*.so.1" {
  const path: string;
  export default path;
}
declare module "*.so.8.18.7" {
  const path: string;
  export default path;
}
declare module "*.bin" {
  const path: string;
  export default path;
}
