import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test, type TestContext } from "node:test";
import { bundleFileFor, requireBundled, writeBundle } from "./bundled-require.ts";

type Fixture = { root: string; from: string; bundle: string; files: Record<string, string> };

/** A project whose node_modules holds `pkg`: a require cycle, JSON, a dependency package, an ES
 * module package, a computed require, a sloppy-mode module and a hashbang file. */
function fixture(t: TestContext): Fixture {
  const root = mkdtempSync(path.join(tmpdir(), "harness-bundle-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const files: Record<string, string> = {
    "node_modules/pkg/package.json": JSON.stringify({ name: "pkg", version: "1.0.0", main: "index.js" }),
    "node_modules/pkg/index.js": [
      '"use strict";',
      'const a = require("./lib/a");',
      'const b = require("./lib/b.js");',
      'const data = require("./data.json");',
      'const dep = require("dep");',
      'const esm = require("esm-only");',
      'const name = "./lib/" + "computed";',
      "exports.cycle = a.seenB + ',' + b.seenA;",
      "exports.data = data.answer;",
      "exports.dep = dep.hello();",
      "exports.esm = esm.kind;",
      "exports.computed = require(name).value;",
      "exports.sloppy = require('./lib/sloppy.js').strict;",
      "exports.bin = require('./bin/tool.js').ran;",
      "exports.thisIsExports = require('./lib/this.js').same;",
      "exports.paths = [__filename, __dirname, require.resolve('./data.json')];",
      "exports.version = 1;",
    ].join("\n"),
    "node_modules/pkg/lib/a.js": 'exports.done = false;\nconst b = require("./b");\nexports.seenB = String(b.done);\nexports.done = true;\n',
    "node_modules/pkg/lib/b.js": 'exports.done = false;\nconst a = require("./a");\nexports.seenA = String(a.done);\nexports.done = true;\n',
    "node_modules/pkg/lib/computed.js": "module.exports = { value: 'computed' };\n",
    "node_modules/pkg/lib/sloppy.js": "module.exports = { strict: (function () { return this === undefined; })() };\n",
    "node_modules/pkg/lib/this.js": "this.same = this === module.exports;\n",
    "node_modules/pkg/bin/tool.js": "#!/usr/bin/env node\nexports.ran = true;\n//# sourceMappingURL=tool.js.map\n",
    "node_modules/pkg/data.json": '{ "answer": 42 }\n',
    "node_modules/dep/package.json": JSON.stringify({ name: "dep", version: "2.0.0" }),
    "node_modules/dep/index.js": "exports.hello = () => 'hello from dep';\n",
    "node_modules/esm-only/package.json": JSON.stringify({ name: "esm-only", version: "1.0.0", type: "module", exports: "./index.js" }),
    "node_modules/esm-only/index.js": "export const kind = 'esm';\n",
    "main.js": "",
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  const from = pathToFileURL(path.join(root, "main.js")).href;
  const entry = createRequire(from).resolve("pkg");
  return { root, from, bundle: bundleFileFor("pkg", entry)!, files };
}

/** Forgets every module loaded from the fixture, so the next require() loads again. */
function forget(root: string): string[] {
  const cache = createRequire(import.meta.url).cache;
  const loaded = Object.keys(cache).filter((file) => file.startsWith(root));
  for (const file of loaded) delete cache[file];
  return loaded;
}

const expected = (root: string) => ({
  cycle: "true,false",
  data: 42,
  dep: "hello from dep",
  esm: "esm",
  computed: "computed",
  sloppy: false,
  bin: true,
  thisIsExports: true,
  paths: [path.join(root, "node_modules/pkg/index.js"), path.join(root, "node_modules/pkg"), path.join(root, "node_modules/pkg/data.json")],
  version: 1,
});

test("the first load writes the package's files into one bundle; the next loads that, with the same exports", (t) => {
  const f = fixture(t);
  const first = requireBundled("pkg", f.from) as Record<string, unknown>;
  assert.deepEqual({ ...first }, expected(f.root));
  assert.ok(existsSync(f.bundle), "the bundle is written");
  assert.equal(path.dirname(f.bundle), path.join(f.root, "node_modules", ".cache", "harness", "bundles"));
  assert.ok(forget(f.root).includes(path.join(f.root, "node_modules/pkg/lib/a.js")), "the first load read the files themselves");

  const second = requireBundled("pkg", f.from) as Record<string, unknown>;
  assert.deepEqual({ ...second }, expected(f.root));
  const loaded = forget(f.root);
  assert.ok(loaded.includes(f.bundle), "the second load read the bundle");
  assert.ok(!loaded.includes(path.join(f.root, "node_modules/pkg/lib/a.js")), "and not the bundled files");
  assert.ok(loaded.includes(path.join(f.root, "node_modules/esm-only/index.js")), "an ES module is left to require()");
});

test("a file changed since the bundle was written makes the next load read the package and write the bundle again", (t) => {
  const f = fixture(t);
  requireBundled("pkg", f.from);
  forget(f.root);
  appendFileSync(path.join(f.root, "node_modules/pkg/index.js"), "\nexports.version = 2;\n");
  const changed = requireBundled("pkg", f.from) as { version: number };
  assert.equal(changed.version, 2);
  assert.ok(!forget(f.root).includes(f.bundle), "the stale bundle is not used");
  const again = requireBundled("pkg", f.from) as { version: number };
  assert.equal(again.version, 2, "the bundle written again has the change");
  assert.ok(forget(f.root).includes(f.bundle));
});

test("a damaged bundle, an unwritable cache and HARNESS_BUNDLE_DEPS=0 all leave the package loading as usual", (t) => {
  const f = fixture(t);
  mkdirSync(path.dirname(f.bundle), { recursive: true });
  writeFileSync(f.bundle, "not a bundle");
  assert.deepEqual({ ...(requireBundled("pkg", f.from) as object) }, expected(f.root));
  assert.match(readFileSync(f.bundle, "utf8"), /^\/\/harness-bundle /, "written again");
  forget(f.root);

  // A bundle whose manifest holds but whose code throws.
  const text = readFileSync(f.bundle, "utf8");
  writeFileSync(f.bundle, text.replace("module.exports = __bundleLoad(0);", "throw new Error('broken');"));
  assert.deepEqual({ ...(requireBundled("pkg", f.from) as object) }, expected(f.root));
  forget(f.root);

  rmSync(path.join(f.root, "node_modules", ".cache"), { recursive: true });
  writeFileSync(path.join(f.root, "node_modules", ".cache"), "a file where the cache directory would go");
  assert.deepEqual({ ...(requireBundled("pkg", f.from) as object) }, expected(f.root));
  forget(f.root);

  rmSync(path.join(f.root, "node_modules", ".cache"));
  assert.deepEqual({ ...(requireBundled("pkg", f.from, { HARNESS_BUNDLE_DEPS: "0" }) as object) }, expected(f.root));
  assert.ok(!existsSync(f.bundle), "nothing written when turned off");
  forget(f.root);
});

test("a package outside node_modules has no bundle; a missing one fails as require() does", () => {
  assert.equal(bundleFileFor("x", "/work/packages/x/index.js"), undefined);
  assert.throws(() => requireBundled("no-such-package-anywhere", import.meta.url), { code: "MODULE_NOT_FOUND" });
});

test("the Anthropic SDK's bundle has the SDK's exports, with its error classes related as in the SDK", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-sdk-bundle-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const req = createRequire(import.meta.url);
  const bundle = path.join(dir, "sdk.cjs");
  writeBundle(req.resolve("@anthropic-ai/sdk"), bundle);
  const sdk = req("@anthropic-ai/sdk") as typeof import("@anthropic-ai/sdk");
  const bundled = req(bundle) as typeof import("@anthropic-ai/sdk");
  t.after(() => delete req.cache[bundle]);
  assert.deepEqual(Object.keys(bundled).sort(), Object.keys(sdk).sort());
  assert.deepEqual(Object.keys(bundled.default).sort(), Object.keys(sdk.default).sort());
  const error = new bundled.RateLimitError(429, undefined, "slow down", new Headers());
  assert.ok(error instanceof bundled.APIError);
  assert.ok(!(error instanceof sdk.APIError), "a separate copy: the reason every SDK value comes from one place");
  const client = new bundled.Anthropic({ apiKey: "k", baseURL: "http://127.0.0.1:9" });
  assert.equal(typeof client.messages.stream, "function");
});
