// The image in the system clipboard, read with the platform's own tool, as Claude Code's Ctrl+V
// reads it: wl-paste under Wayland, xclip under X11, pngpaste (else osascript) on macOS, and
// PowerShell's Get-Clipboard on Windows and under WSL. Text in the clipboard is no business of
// this: the terminal pastes it itself.
import { execFile } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, join } from "node:path";

/** The agent's Read tool takes no image larger than this (MAX_IMAGE_SOURCE_BYTES in the agent's
 * tools/image/fit-image.ts); it shrinks anything smaller to fit what the model takes. */
export const MAX_IMAGE_BYTES = 64 * 1024 * 1024;

/** The clipboard's image types the chat takes, the first found in this order. */
const TYPES: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };

/** A tool that does not answer in this long is given up on. */
const TIMEOUT_MS = 5_000;

export type ClipboardImage = { ok: true; bytes: Buffer; extension: string } | { ok: false; note: string };

/** `timeoutMs`: how long a tool is waited for (TIMEOUT_MS). */
type Place = { env: NodeJS.ProcessEnv; platform: NodeJS.Platform; timeoutMs?: number };

/** Runs a clipboard tool: its stdout, at most `max` bytes (MAX_IMAGE_BYTES). */
type Run = (tool: string, args: string[], max?: number) => Promise<Buffer>;

/** The clipboard's image, or a note saying why there is none (no image, no tool, too large). */
export async function readClipboardImage(place: Place = { env: process.env, platform: process.platform }): Promise<ClipboardImage> {
  const { env, platform } = place;
  const found = (name: string) => onPath(name, env);
  const exec: Run = (tool, args, max = MAX_IMAGE_BYTES) => run(tool, args, max, place.timeoutMs ?? TIMEOUT_MS);
  try {
    if (platform === "darwin") return await macImage(exec, found);
    if (platform === "win32" || isWsl(env)) return await windowsImage(exec, found);
    if (env.WAYLAND_DISPLAY) {
      const tool = found("wl-paste");
      if (tool) return await listedImage(exec, tool, ["--list-types"], (type) => ["--type", type]);
      if (!env.DISPLAY) return { ok: false, note: "Ctrl+V reads an image with wl-paste, which is not installed: install wl-clipboard" };
    }
    if (env.DISPLAY) {
      const tool = found("xclip");
      if (tool) return await listedImage(exec, tool, ["-selection", "clipboard", "-t", "TARGETS", "-o"], (type) => ["-selection", "clipboard", "-t", type, "-o"]);
      return { ok: false, note: "Ctrl+V reads an image with xclip, which is not installed: install xclip" };
    }
    return { ok: false, note: "Ctrl+V finds no clipboard here: neither WAYLAND_DISPLAY nor DISPLAY is set (a terminal over ssh?)" };
  } catch (error) {
    const message = (error as Error).message;
    return { ok: false, note: message === TOO_LARGE ? TOO_LARGE : `Ctrl+V could not read the clipboard: ${message}` };
  }
}

/** Wayland's and X11's tools list the clipboard's types, then give the bytes of one. */
async function listedImage(run: Run, tool: string, list: string[], get: (type: string) => string[]): Promise<ClipboardImage> {
  // An empty clipboard makes both fail ("No selection", "target TARGETS not available"); one that
  // does not answer is no empty clipboard.
  const listed = await run(tool, list).catch((error: unknown) => {
    if (error instanceof NoAnswer) throw error;
    return undefined;
  });
  if (!listed) return noImage();
  const types = listed.toString("utf8").split(/\r?\n/).map((line) => line.trim());
  const type = Object.keys(TYPES).find((t) => types.includes(t));
  if (!type) return noImage();
  return image(await run(tool, get(type)), TYPES[type]!);
}

async function macImage(run: Run, found: (name: string) => string | undefined): Promise<ClipboardImage> {
  const pngpaste = found("pngpaste");
  if (pngpaste) {
    const bytes = await run(pngpaste, ["-"]).catch((error: unknown) => {
      if (error instanceof NoAnswer) throw error;
      return undefined;
    });
    return bytes?.length ? image(bytes, "png") : noImage();
  }
  // AppleScript writes the clipboard's PNG («class PNGf») into a file; with none, it fails.
  const dir = mkdtempSync(join(tmpdir(), "harness-clipboard-"));
  try {
    const file = join(dir, "clipboard.png");
    const script = [`set png to (the clipboard as «class PNGf»)`, `set f to open for access POSIX file ${JSON.stringify(file)} with write permission`, "write png to f", "close access f"];
    const done = await run("osascript", script.flatMap((line) => ["-e", line])).then(
      () => true,
      (error: unknown) => {
        if (error instanceof NoAnswer) throw error;
        return false;
      },
    );
    if (!done) return noImage();
    if (statSync(file).size > MAX_IMAGE_BYTES) return tooLarge();
    return image(readFileSync(file), "png");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function windowsImage(run: Run, found: (name: string) => string | undefined): Promise<ClipboardImage> {
  const shell = found("powershell.exe") ?? found("powershell");
  if (!shell) return { ok: false, note: "Ctrl+V reads an image with powershell.exe, which is not on PATH" };
  // Base64 on stdout: PowerShell's own stdout would mangle bytes.
  const script = "$i = Get-Clipboard -Format Image; if ($i) { $m = New-Object System.IO.MemoryStream; $i.Save($m, [System.Drawing.Imaging.ImageFormat]::Png); [Convert]::ToBase64String($m.ToArray()) }";
  const text = (await run(shell, ["-NoProfile", "-NonInteractive", "-Command", script], MAX_IMAGE_BYTES * 2)).toString("utf8").trim();
  return text ? image(Buffer.from(text, "base64"), "png") : noImage();
}

const noImage = (): ClipboardImage => ({ ok: false, note: "no image in the clipboard (Ctrl+V pastes images; the terminal pastes text)" });
const TOO_LARGE = `the clipboard's image is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB, more than the agent reads`;
const tooLarge = (): ClipboardImage => ({ ok: false, note: TOO_LARGE });

function image(bytes: Buffer, extension: string): ClipboardImage {
  if (bytes.length === 0) return noImage();
  return bytes.length > MAX_IMAGE_BYTES ? tooLarge() : { ok: true, bytes, extension };
}

/** A tool that did not answer in time: not an empty clipboard. */
class NoAnswer extends Error {}

/** `tool args…`'s stdout; one over `max` bytes is too large an image. */
function run(tool: string, args: string[], max: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { encoding: "buffer", maxBuffer: max + 1, timeout: timeoutMs, windowsHide: true }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if ((error as { code?: unknown }).code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") return reject(new Error(TOO_LARGE));
      if (error.killed) return reject(new NoAnswer(`${basename(tool)} did not answer in ${timeoutMs / 1000} s`));
      const said = stderr.toString("utf8").trim().split("\n")[0];
      reject(new Error(`${tool} failed${said ? `: ${said}` : ""}`));
    });
  });
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // Not there.
    }
  }
  return undefined;
}

function isWsl(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.WSL_DISTRO_NAME || env.WSL_INTEROP);
}
