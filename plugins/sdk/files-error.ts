/** A failure the model can act on; the tool wrapper prefixes the tool's name. */
export class FilesError extends Error {
  override name = "FilesError";
}
