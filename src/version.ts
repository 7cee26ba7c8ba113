/** slp's version, from package.json (inlined by the bundler in the compiled binary). */
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
