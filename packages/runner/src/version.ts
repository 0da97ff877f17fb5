// The runner's version as its /health says it: a hash of the sources of the packages a runner
// loads, so that it changes whenever their code does (the packages' version numbers do not). A
// server compares it with its own reckoning to tell a runner an earlier server left, of the code
// before an upgrade, from one it could have started itself (the server's runners/lifecycle.ts).
// Computed once, when the runner starts, from the files as they are then: the code it loaded.
// Reading ~500 files of ~2 MB takes some 10 ms.
//   env HARNESS_RUNNER_VERSION: stands in for the hash (for tests only: a runner "of another
//   version" without changing the code); at most 128 printable ASCII characters.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const RUNNER_VERSION_ENV = "HARNESS_RUNNER_VERSION";
const PACKAGES = fileURLToPath(new URL("../../", import.meta.url));
/** The packages whose code runs in a runner process. */
const RUNNER_PACKAGES = ["protocol", "llm", "agent", "runner", "startup"];
const SOURCE = /\.(ts|mjs|js|json|txt|md)$/;

let computed: string | undefined;

/** This checkout's runner version (see the header), or `env`'s stand-in; throws on a bad stand-in. */
export function runnerVersion(env: Record<string, string | undefined> = process.env): string {
  const given = env[RUNNER_VERSION_ENV];
  if (given !== undefined) {
    if (!/^[\x21-\x7e]{1,128}$/.test(given)) throw new Error(`${RUNNER_VERSION_ENV} must be 1 to 128 printable ASCII characters without spaces, got ${JSON.stringify(given.slice(0, 140))}`);
    return given;
  }
  computed ??= hashSources();
  return computed;
}

function hashSources(): string {
  const hash = createHash("sha256");
  for (const name of RUNNER_PACKAGES) {
    const root = join(PACKAGES, name);
    hash.update(readFileSync(join(root, "package.json")));
    for (const file of sourcesUnder(join(root, "src"))) hash.update(file.slice(PACKAGES.length)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** The files under `dir` that are code or data of it (tests are not), in a stable order. */
function sourcesUnder(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && SOURCE.test(e.name) && !e.name.endsWith(".test.ts"))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}
