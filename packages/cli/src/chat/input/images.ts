// Where the images pasted into a local chat's prompt are kept: in the project, under
// .harness/images/ (a .gitignore there keeps them out of version control). The project is the
// workspace of the chat's runs, so that the `@path` a placeholder becomes is read without asking,
// as any file of the project is (the agent attaches the image: agent/harness/mentions/files.ts).
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { extname, isAbsolute, join, relative } from "node:path";
import { MAX_IMAGE_BYTES } from "./clipboard-image.ts";

export const IMAGES_DIR = join(".harness", "images");

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
  const mention = (file: string) => `@${relative(project, file).replaceAll(" ", "\\ ")}`;
  const tooLarge = (what: string) => ({ ok: false as const, note: `${what} is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB, more than the agent reads` });
  return {
    save(bytes, extension) {
      if (bytes.length > MAX_IMAGE_BYTES) return tooLarge("the image");
      try {
        const file = newFile(extension);
        writeFileSync(file, bytes, { mode: 0o600 });
        return { ok: true, mention: mention(file) };
      } catch (error) {
        return { ok: false, note: `cannot keep the image in ${dir}: ${(error as Error).message}` };
      }
    },
    adopt(file) {
      if (statSync(file).size > MAX_IMAGE_BYTES) return tooLarge(file);
      const inside = relative(project, file);
      // The mention's form (agent/context/markdown-imports.ts) escapes spaces, and no other blank.
      if (inside && !inside.startsWith("..") && !isAbsolute(inside) && !/[\\\t\n\r]/.test(inside)) return { ok: true, mention: mention(file) };
      try {
        const copy = newFile(extname(file).slice(1).toLowerCase());
        copyFileSync(file, copy);
        return { ok: true, mention: mention(copy) };
      } catch (error) {
        return { ok: false, note: `cannot copy ${file} into ${dir}: ${(error as Error).message}` };
      }
    },
  };
}
