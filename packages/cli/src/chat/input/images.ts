// Where the images pasted into a local chat's prompt are kept: in the project, under
// .harness/images/ (a .gitignore there keeps them out of version control). The project is the
// workspace of the chat's runs, so that the `@path` a placeholder becomes is read without asking,
// as any file of the project is (the agent attaches the image: agent/harness/mentions/files.ts).
// They are kept KEPT_IMAGE_DAYS: a chat, as it starts, deletes those kept longer (forgetOldImages).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { lstat, readdir, unlink } from "node:fs/promises";
import { extname, isAbsolute, join, relative } from "node:path";
import { findImports } from "@harness/agent/markdown-imports";
import { MAX_IMAGE_BYTES } from "./clipboard-image.ts";

export const IMAGES_DIR = join(".harness", "images");

/** How many days an image kept here stays, from its file's last change. */
export const KEPT_IMAGE_DAYS = 30;
/** The names `newFile` gives (below): the only files here the chat deletes, never one someone else
 * put in the directory. */
const KEPT_NAME = /^image-\d{8}-\d{6}-[0-9a-f]{6}\.[a-z0-9]+$/;

/** How an image is kept: the user's alone to read (a screenshot may show anything), in a file of
 * its own, never one that was there already (or a link someone put in its place). */
const KEPT = { mode: 0o600, flag: "wx" } as const;

/** A file attached: the `@path` mention the prompt sends, or why it cannot be. */
export type Attached = { ok: true; mention: string } | { ok: false; note: string };

export type ImageStore = {
  /** Keeps `bytes` (an image of type `extension`) in a file of its own. */
  save(bytes: Buffer, extension: string): Attached;
  /** An image file pasted by its path: one in the project is named where it is, one elsewhere
   * is copied in (a file outside the project would need approval to be read). */
  adopt(file: string): Attached;
};

export function imageStore(project: string): ImageStore {
  const dir = join(project, IMAGES_DIR);
  const newFile = (extension: string) => {
    mkdirSync(dir, { recursive: true });
    const ignore = join(dir, ".gitignore");
    if (!existsSync(ignore)) writeFileSync(ignore, "*\n");
    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
    return join(dir, `image-${stamp}-${randomBytes(3).toString("hex")}.${extension}`);
  };
  const mentionOf = (inside: string) => `@${inside.replaceAll(" ", "\\ ")}`;
  const mention = (file: string) => mentionOf(relative(project, file));
  const tooLarge = (what: string) => ({ ok: false as const, note: `${what} is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB, more than the agent reads` });
  return {
    save(bytes, extension) {
      if (bytes.length > MAX_IMAGE_BYTES) return tooLarge("the image");
      try {
        const file = newFile(extension);
        writeFileSync(file, bytes, KEPT);
        return { ok: true, mention: mention(file) };
      } catch (error) {
        return { ok: false, note: `cannot keep the image in ${dir}: ${(error as Error).message}` };
      }
    },
    adopt(file) {
      // Where the file really is, its links resolved, as the runs' permissions see it: one that a
      // link in the project leads out of it to would need approval to be read.
      let inside: string;
      try {
        if (statSync(file).size > MAX_IMAGE_BYTES) return tooLarge(file);
        inside = relative(realpathSync(project), realpathSync(file));
      } catch (error) {
        return { ok: false, note: `cannot read ${file}: ${(error as Error).message}` };
      }
      // Named where it is only when its mention reads back as its path (agent/context/markdown-imports.ts
      // escapes spaces only, cuts a #fragment, and takes no path that starts with "(" or "é").
      if (inside && !inside.startsWith("..") && !isAbsolute(inside) && readsBack(inside)) return { ok: true, mention: mentionOf(inside) };
      try {
        const copy = newFile(extname(file).slice(1).toLowerCase());
        // Read and written, not copied: a copy would take the mode of the file it came from.
        writeFileSync(copy, readFileSync(file), KEPT);
        return { ok: true, mention: mention(copy) };
      } catch (error) {
        return { ok: false, note: `cannot copy ${file} into ${dir}: ${(error as Error).message}` };
      }
    },
  };
}

/** Whether the mention of `inside` (a path relative to the project) names that path. */
function readsBack(inside: string): boolean {
  const found = findImports(`@${inside.replaceAll(" ", "\\ ")}`);
  return found.length === 1 && found[0] === inside;
}

/** Deletes the images the chat kept in `project` that have not changed for KEPT_IMAGE_DAYS: files of
 * the chat's own naming only (a link or directory so named stays). Resolves to how many it deleted;
 * never rejects: a directory that cannot be read, or an image that cannot be deleted, is left. */
export async function forgetOldImages(project: string, now = Date.now()): Promise<number> {
  const dir = join(project, IMAGES_DIR);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const before = now - KEPT_IMAGE_DAYS * 24 * 60 * 60 * 1000;
  let deleted = 0;
  for (const entry of entries) {
    if (!entry.isFile() || !KEPT_NAME.test(entry.name)) continue;
    const file = join(dir, entry.name);
    try {
      const stat = await lstat(file);
      if (!stat.isFile() || stat.mtimeMs >= before) continue;
      await unlink(file);
      deleted++;
    } catch {
      // Gone meanwhile, or not ours to delete (permissions): it stays.
    }
  }
  return deleted;
}
