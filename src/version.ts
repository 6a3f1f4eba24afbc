/** The version of this build, from package.json (bundled into the binary). */
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
