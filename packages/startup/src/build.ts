// Writes the startup bundle (see startup.ts) with esbuild: the `harness` command's entry and every
// module of the workspace's packages and of zod it imports, as one ES module. Every other package
// stays an import Node resolves at run time, from the bundle's directory: the bundle is refused
// when one of them would resolve there to another file than from the module that imports it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { manifestLine, stampOf, type FileStamp } from "@harness/llm/bundled-require";
import { buildsInUse, IN_USE } from "./in-use.ts";
import { BUNDLER, ROOT } from "./places.ts";

/** Bare imports taken into the bundle; the rest are left to Node. zod is hundreds of small files
 * that only the workspace's code imports. */
const BUNDLED = /^(@harness\/|zod(\/|$))/;

/** Rewrites what a module says of its own place (import.meta.url and the like) to the place of its
 * source file, which the module's code reads files and starts workers beside. */
function ownPlace(source: string, file: string): string {
  return source
    .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(file).href))
    .replaceAll("import.meta.filename", JSON.stringify(file))
    .replaceAll("import.meta.dirname", JSON.stringify(dirname(file)));
}

function plugin(out: string): Plugin {
  return {
    name: "harness-startup-bundle",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        // The resolutions asked below come back here: they are esbuild's own to answer.
        if (args.pluginData?.outside || args.path.startsWith("node:") || BUNDLED.test(args.path) || isAbsolute(args.path)) return undefined;
        const options = { kind: args.kind, resolveDir: args.resolveDir, pluginData: { outside: true } };
        const [fromImporter, fromBundle] = await Promise.all([build.resolve(args.path, options), build.resolve(args.path, { ...options, resolveDir: dirname(out) })]);
        if (fromImporter.errors.length === 0 && fromImporter.path !== fromBundle.path) {
          return { errors: [{ text: `${args.path} resolves to ${fromImporter.path} from ${args.importer} but to ${fromBundle.path || "nothing"} from the bundle` }] };
        }
        return { path: args.path, external: true };
      });
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(join(ROOT, "packages"))) return undefined;
        return { contents: ownPlace(readFileSync(args.path, "utf8"), args.path), loader: "ts" };
      });
    },
  };
}

export type Built = { files: number; chunks: number; bytes: number; ms: number };

/** Builds older than this, other than the newest few and those a live process was started from
 * (in-use.ts: it loads their chunks as it first uses what they hold, and a server may run for
 * days), are removed by the next build. */
const KEEP_BUILDS_MS = 24 * 3_600_000;
const KEEP_BUILDS = 3;

/** Bundles `entry` into `out`, a module that imports the build's entry chunk from a directory of its
 * own beside it: `<out without .mjs>/<hash of the build>/`. The code is split where the sources
 * import a module dynamically, so that what a start does not use (and the packages only that
 * imports) stays unloaded. `out` is written last and atomically (other processes may be loading
 * it); its first line lists every file the build holds with its size and ctime, and a file changed
 * while the build ran fails it rather than leave a bundle that holds older code than its stamps say. */
export async function buildBundle(entry: string, out: string): Promise<Built> {
  const startedAt = Date.now();
  const builds = out.replace(/\.mjs$/, "");
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: { main: entry },
    outdir: join(builds, "next"),
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node24",
    chunkNames: "[name]-[hash]",
    // Under node_modules no package.json says the chunks are ES modules: as .js, Node would parse
    // each one twice to find out (module syntax detection), at every start.
    outExtension: { ".js": ".mjs" },
    write: false,
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
    plugins: [plugin(out)],
  });
  const stamps: FileStamp[] = [];
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = join(ROOT, input);
    const stamp = stampOf(file);
    if (!stamp) throw new Error(`${file} is gone since the build read it`);
    if (stamp[2] >= startedAt) throw new Error(`${file} changed while the bundle was built`);
    stamps.push(stamp);
  }
  // The bundler too (places.ts BUNDLER).
  const bundler = stampOf(BUNDLER);
  if (bundler && !stamps.some(([file]) => file === BUNDLER)) stamps.push(bundler);
  const hash = createHash("sha256");
  for (const file of result.outputFiles) hash.update(basename(file.path)).update("\0").update(file.contents);
  const id = hash.digest("hex").slice(0, 16);
  const dir = join(builds, id);
  if (!existsSync(join(dir, "main.mjs"))) {
    const temporary = `${dir}.${process.pid}.tmp`;
    rmSync(temporary, { recursive: true, force: true });
    mkdirSync(temporary, { recursive: true });
    for (const file of result.outputFiles) writeFileSync(join(temporary, basename(file.path)), file.contents);
    rmSync(dir, { recursive: true, force: true });
    renameSync(temporary, dir);
  }
  const stub = `${manifestLine(stamps)}import ${JSON.stringify(`./${basename(builds)}/${id}/main.mjs`)};\n`;
  const temporary = `${out}.${process.pid}.tmp`;
  writeFileSync(temporary, stub);
  renameSync(temporary, out);
  removeOldBuilds(builds, id);
  const bytes = result.outputFiles.reduce((sum, f) => sum + f.contents.byteLength, 0);
  return { files: stamps.length, chunks: result.outputFiles.length, bytes, ms: Date.now() - startedAt };
}

function removeOldBuilds(builds: string, current: string): void {
  const inUse = buildsInUse(builds);
  const old = readdirSync(builds)
    .filter((name) => name !== current && name !== "next" && name !== IN_USE && !inUse.has(name))
    .map((name) => ({ name, at: statSync(join(builds, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const [i, { name, at }] of old.entries()) {
    const leftover = name.endsWith(".tmp") && !name.endsWith(`.${process.pid}.tmp`);
    if (i >= KEEP_BUILDS - 1 && (Date.now() - at > KEEP_BUILDS_MS || leftover)) rmSync(join(builds, name), { recursive: true, force: true });
  }
}
