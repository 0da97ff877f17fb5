// The web UI's files (packages/web), bundled for browsers with esbuild at the first request for
// them and kept in memory: the page, its script and its style, the latter two named by a hash of
// their contents so that a browser may keep them for good and never runs a stale script. It takes
// some 80 ms (esbuild's start included), once per server process: not worth a cache on disk.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./places.ts";

const WEB = join(ROOT, "packages", "web", "src");

/** A file of the UI under /ui/. */
export type WebUiFile = { contentType: string; body: string };
/** The page (served at /) and the files it loads, by name under /ui/. */
export type WebUiBundle = { html: string; files: Record<string, WebUiFile>; ms: number };

export async function buildWebUi(): Promise<WebUiBundle> {
  const startedAt = performance.now();
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [join(WEB, "main.ts")],
    absWorkingDir: ROOT,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
    legalComments: "none",
  });
  const script = result.outputFiles[0].text;
  const style = readFileSync(join(WEB, "style.css"), "utf8");
  const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);
  const scriptName = `app-${hash(script)}.js`;
  const styleName = `app-${hash(style)}.css`;
  const html = readFileSync(join(WEB, "index.html"), "utf8").replace("%SCRIPT%", `/ui/${scriptName}`).replace("%STYLE%", `/ui/${styleName}`);
  return {
    html,
    files: {
      [scriptName]: { contentType: "text/javascript; charset=utf-8", body: script },
      [styleName]: { contentType: "text/css; charset=utf-8", body: style },
    },
    ms: Math.round(performance.now() - startedAt),
  };
}
