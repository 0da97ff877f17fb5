// require() for a CommonJS package with many files, from one file. Node's loader spends a good part
// of a millisecond on each file it resolves, reads and wraps, and the model SDKs are hundreds of
// files (the Anthropic SDK and what it requires: 311); loading them is most of what a process does
// before its first model request. The first load of a package goes through require() as usual and
// then writes the package's files, and the files they require, into one file under
// node_modules/.cache/harness/bundles; later loads require that one file (which Node's compile
// cache then keeps compiled) while every file it holds is unchanged (same size and ctime: any
// reinstall or edit changes a file's ctime). Anything that cannot be bundled (a native addon, an
// ES module, a require() of a computed name) is left to the real require() at run time.
// HARNESS_BUNDLE_DEPS=0 turns this off.
import { accessSync, closeSync, constants, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import path from "node:path";

const FORMAT = 2;
const HEADER = "//harness-bundle ";

export type FileStamp = [file: string, size: number, ctimeMs: number];
type Manifest = { format: number; files: FileStamp[] };

/** `require(specifier)` as from `from`, through the package's bundle when it is there and fresh. */
export function requireBundled(specifier: string, from: string | URL, env: NodeJS.ProcessEnv = process.env): unknown {
  const req = createRequire(from);
  if (env.HARNESS_BUNDLE_DEPS === "0") return req(specifier);
  let entry: string;
  try {
    entry = req.resolve(specifier);
  } catch {
    return req(specifier);
  }
  const bundle = bundleFileFor(specifier, entry);
  if (bundle === undefined) return req(specifier);
  if (isFresh(bundle)) {
    try {
      return req(bundle);
    } catch {
      // A damaged bundle: load the package itself, and write the bundle again.
      delete req.cache[bundle];
    }
  }
  const exports = req(specifier);
  try {
    writeBundle(entry, bundle);
  } catch {
    // A cache: a read-only node_modules or a full disk leaves the package loading as it always did.
  }
  return exports;
}

/** Where the bundle of `specifier` lives: in the node_modules the package was found in (so it is
 * as trusted as the package itself), or nowhere for a package outside one. */
export function bundleFileFor(specifier: string, entry: string): string | undefined {
  const at = entry.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (at < 0) return undefined;
  const nodeModules = entry.slice(0, at + path.sep.length + "node_modules".length);
  return path.join(nodeModules, ".cache", "harness", "bundles", `${specifier.replace(/[^\w.-]/g, "+")}.cjs`);
}

/** What a bundle remembers of a file it holds: any rewrite or reinstall changes its size or ctime. */
export function stampOf(file: string): FileStamp | undefined {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat ? [file, stat.size, stat.ctimeMs] : undefined;
}

function readManifest(bundle: string): Manifest | undefined {
  let fd: number;
  try {
    fd = openSync(bundle, "r");
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    const chunk = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return undefined;
      const end = chunk.subarray(0, n).indexOf(10);
      chunks.push(Buffer.from(chunk.subarray(0, end < 0 ? n : end)));
      if (end >= 0) break;
    }
    const line = Buffer.concat(chunks).toString("utf8");
    if (!line.startsWith(HEADER)) return undefined;
    const manifest = JSON.parse(line.slice(HEADER.length)) as Manifest;
    return manifest.format === FORMAT && Array.isArray(manifest.files) ? manifest : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The first line of a bundle that holds the files of `stamps`, as isFresh reads it. */
export function manifestLine(stamps: FileStamp[]): string {
  const manifest: Manifest = { format: FORMAT, files: stamps };
  return `${HEADER}${JSON.stringify(manifest)}\n`;
}

/** Whether every file `bundle` holds (as its first line lists them) is as it was when it was written,
 * and whether each of `holding` is among them (a bundle written for another checkout, whose
 * node_modules this one shares, holds other files). */
export function isFresh(bundle: string, holding: readonly string[] = []): boolean {
  const manifest = readManifest(bundle);
  if (!manifest) return false;
  if (!holding.every((wanted) => manifest.files.some(([file]) => file === wanted))) return false;
  for (const [file, size, ctimeMs] of manifest.files) {
    const now = stampOf(file);
    if (!now || now[1] !== size || now[2] !== ctimeMs) return false;
  }
  return true;
}

const REQUIRE_CALL = /\brequire\(\s*(["'])([^"'\n]+)\1\s*\)/g;

type Module = { file: string; stamp: FileStamp; source: string; requires: Record<string, number> };

/** The CommonJS files reachable from `entry` by require() of a literal name; `entry` is first. */
function collectModules(entry: string): Module[] {
  const ids = new Map<string, number>();
  const modules: Module[] = [];
  const typeOfDir = new Map<string, string | undefined>();
  const visit = (file: string): number | undefined => {
    const known = ids.get(file);
    if (known !== undefined) return known;
    if (!isCommonJs(file, typeOfDir)) return undefined;
    const stamp = stampOf(file);
    if (!stamp) return undefined;
    const id = modules.length;
    ids.set(file, id);
    const module: Module = { file, stamp, source: readFileSync(file, "utf8"), requires: {} };
    modules.push(module);
    if (file.endsWith(".json")) return id;
    const resolveFrom = createRequire(file);
    for (const match of module.source.matchAll(REQUIRE_CALL)) {
      const specifier = match[2];
      if (isBuiltin(specifier) || Object.hasOwn(module.requires, specifier)) continue;
      let target: string;
      try {
        target = resolveFrom.resolve(specifier);
      } catch {
        continue; // Maybe never called (a comment, an optional dependency); left to require().
      }
      if (isBuiltin(target)) continue;
      const targetId = visit(target);
      if (targetId !== undefined) module.requires[specifier] = targetId;
    }
    return id;
  };
  visit(entry);
  return modules;
}

/** A .js file is CommonJS unless its package says "type": "module"; .cjs and .json always are. */
function isCommonJs(file: string, typeOfDir: Map<string, string | undefined>): boolean {
  if (file.endsWith(".cjs") || file.endsWith(".json")) return true;
  if (!file.endsWith(".js")) return false;
  return packageType(path.dirname(file), typeOfDir) !== "module";
}

function packageType(dir: string, typeOfDir: Map<string, string | undefined>): string | undefined {
  if (typeOfDir.has(dir)) return typeOfDir.get(dir);
  let type: string | undefined;
  let text: string | undefined;
  try {
    text = readFileSync(path.join(dir, "package.json"), "utf8");
  } catch {
    // No package.json here: the directory above decides.
  }
  if (text !== undefined) {
    try {
      type = (JSON.parse(text) as { type?: string }).type;
    } catch {
      type = undefined;
    }
  } else {
    const parent = path.dirname(dir);
    type = parent === dir ? undefined : packageType(parent, typeOfDir);
  }
  typeOfDir.set(dir, type);
  return type;
}

/** The modules as one CommonJS file whose exports are the first module's. Each module runs in the
 * function Node would wrap it in, with a require() that serves the bundled modules it names and
 * hands everything else to the real require() from the module's own path. */
function bundleSource(modules: readonly Module[]): string {
  const parts = [manifestLine(modules.map((m) => m.stamp)), "const __bundleFiles = ", JSON.stringify(modules.map((m) => m.file)), ";\n"];
  parts.push("const __bundleRequires = ", JSON.stringify(modules.map((m) => m.requires)), ";\n", "const __bundleBodies = [\n");
  for (const { file, source } of modules) {
    const body = file.endsWith(".json") ? `module.exports = ${source.trim()};` : withoutHashbang(source).replace(/^\/\/# sourceMappingURL=.*$/gm, "");
    parts.push("function (exports, require, module, __filename, __dirname) {", body, "\n},\n");
  }
  parts.push("];\n", RUNTIME);
  return parts.join("");
}

const withoutHashbang = (source: string) => (source.startsWith("#!") ? `//${source}` : source);

const RUNTIME = `const __bundleLoaded = new Array(__bundleBodies.length);
const { createRequire: __bundleCreateRequire } = require("node:module");
const { dirname: __bundleDirname } = require("node:path");
function __bundleLoad(id) {
  if (__bundleLoaded[id]) return __bundleLoaded[id].exports;
  const file = __bundleFiles[id];
  const module = { id: file, filename: file, exports: {}, loaded: false, children: [], paths: [] };
  __bundleLoaded[id] = module;
  let outside;
  const own = __bundleRequires[id];
  const outsideRequire = () => (outside ??= __bundleCreateRequire(file));
  const req = (name) => (Object.hasOwn(own, name) ? __bundleLoad(own[name]) : outsideRequire()(name));
  req.resolve = (name, options) => outsideRequire().resolve(name, options);
  module.require = req;
  __bundleBodies[id].call(module.exports, module.exports, req, module, file, __bundleDirname(file));
  module.loaded = true;
  return module.exports;
}
module.exports = __bundleLoad(0);
`;

/** Writes the bundle of the package whose entry is `entry`, atomically (other processes may be
 * loading or writing it). */
export function writeBundle(entry: string, bundle: string): void {
  // Checked first: where it cannot be written (a shared install), every start would read the
  // whole package again for nothing.
  mkdirSync(path.dirname(bundle), { recursive: true });
  accessSync(path.dirname(bundle), constants.W_OK);
  const modules = collectModules(entry);
  if (modules.length === 0) return;
  const temporary = `${bundle}.${process.pid}.tmp`;
  writeFileSync(temporary, bundleSource(modules));
  renameSync(temporary, bundle);
}
