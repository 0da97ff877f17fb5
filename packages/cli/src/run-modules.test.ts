// What `harness run` loads before its first model request is part of its start time: the wire
// protocol's schemas, for one, cost it about 20 ms and serve only the server and the runner process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textInWords } from "@harness/test-utils";
import { harness, tempDir, withFake } from "./test-support.ts";

/** Modules no headless run needs: the wire protocol's schemas (the package index pulls them all in)
 * and the server. */
const NOT_FOR_A_RUN = [/\/packages\/protocol\/src\/(index|wire|runner|runner-control|frames)\.ts$/, /\/packages\/server\//, /\/packages\/session\//];

test("harness run loads neither the wire protocol's schemas nor the server", async (t) => {
  const dir = tempDir(t);
  const fake = await withFake(t, startFakeAnthropic({ respond: () => textInWords("done") }));
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
  const { code, stderr } = await harness(["run", "hello"], { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: fake.url, HOME: dir, NODE_OPTIONS: `--import ${hook}` }, { cwd: dir }).result;
  assert.equal(code, 0, stderr);
  const loaded = readFileSync(log, "utf8").split("\n").filter(Boolean);
  assert.ok(loaded.some((url) => url.endsWith("/packages/llm/src/anthropic-provider.ts")), "the record covers the run's own modules");
  assert.deepEqual(
    loaded.filter((url) => NOT_FOR_A_RUN.some((pattern) => pattern.test(url))),
    [],
  );
});
