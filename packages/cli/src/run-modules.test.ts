// What `harness run` loads before its first model request is part of its start time: the wire
// protocol's schemas, for one, cost it about 20 ms and serve only the server and the runner process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeAnthropic, textInWords } from "@harness/test-utils";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = join(root, "packages/cli/bin/harness");

/** Modules no headless run needs: the wire protocol's schemas (the package index pulls them all in)
 * and the server. */
const NOT_FOR_A_RUN = [/\/packages\/protocol\/src\/(index|wire|runner|runner-control|frames)\.ts$/, /\/packages\/server\//, /\/packages\/session\//];

test("harness run loads neither the wire protocol's schemas nor the server", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-run-modules-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fake = await startFakeAnthropic({ respond: () => textInWords("done") });
  t.after(() => fake.close());
  // Every module the process resolves is written down, one URL per line.
  const log = join(dir, "modules.txt");
  const hook = join(dir, "record.mjs");
  writeFileSync(
    hook,
    `import { registerHooks } from "node:module";
import { appendFileSync } from "node:fs";
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); appendFileSync(${JSON.stringify(log)}, r.url + "\\n"); return r; } });
`,
  );
  const child = spawn("bash", [bin, "run", "hello"], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: fake.url, HOME: dir, NODE_OPTIONS: `--import ${hook}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout!.resume();
  const [code] = await once(child, "close");
  assert.equal(code, 0, stderr);
  const loaded = readFileSync(log, "utf8").split("\n").filter(Boolean);
  assert.ok(loaded.some((url) => url.endsWith("/packages/llm/src/anthropic-provider.ts")), "the record covers the run's own modules");
  assert.deepEqual(
    loaded.filter((url) => NOT_FOR_A_RUN.some((pattern) => pattern.test(url))),
    [],
  );
});
