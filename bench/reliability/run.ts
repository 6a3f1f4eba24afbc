/**
 * `make bench-reliability`: the long campaigns, in the `bench: NAME VALUE UNIT` format of
 * `make bench` — kill -9 with turns in flight, fuzz at both doors, the files tools under a
 * symlink-swapping race, injection chains against the untrusted mark, a secret sent out 20 ways
 * while marked, an external plugin reaching for the key, token and database, the web surface's
 * security figures (security.ts), the ten-minute soak. About 15–20 minutes on a 2-core machine,
 * most of it the soak.
 */
import { benchFilesRace } from "./files-race.ts";
import { benchFuzz } from "./fuzz.ts";
import { benchInjection } from "./injection.ts";
import { benchExfil } from "./exfil.ts";
import { benchKill9 } from "./kill9.ts";
import { benchPluginSecrets } from "./plugin-secrets.ts";
import { benchSecurity } from "./security.ts";
import { benchSoak } from "./soak.ts";

const t0 = performance.now();
await benchKill9();
await benchFuzz();
await benchFilesRace();
await benchInjection();
await benchExfil();
await benchPluginSecrets();
await benchSecurity();
await benchSoak();
console.error(`bench-reliability finished in ${((performance.now() - t0) / 60_000).toFixed(1)} min`);
