// The versions of a session's skills: each folder the API wrote (register, update, upgrade), and
// each it found changed since (by hand, or by a run), kept whole in the server's data directory
// (the session's state, removed with it and copied into its forks), never in the workspace, which the
// user and the agent write. One directory a skill, named by a hash of its name: index.json (the
// versions, oldest first, and which one is the folder now) and a folder of files a version. Bounded:
// at most `maxVersions` a skill and `maxBytes` in all, the oldest dropped first (never the current).
// Callers hold the workspace's skills turn (one-at-a-time.ts): nothing here locks.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { BundleFile } from "./skill-files.ts";

export type SkillVersion = {
  version: string;
  created_at: string;
  /** "sha256:" and the hex digest of the files (their paths and bytes, by path). */
  hash: string;
  files: number;
  size_bytes: number;
  changelog?: string;
};

/** A skill's kept versions, oldest first; `current` is the one the API last put in its folder. */
export type SkillHistory = { name: string; next: number; current?: string; versions: SkillVersion[] };

export type VersionLimits = { maxVersions: number; maxBytes: number };
export const VERSION_LIMITS: VersionLimits = { maxVersions: 20, maxBytes: 50 * 1024 * 1024 };

export type SkillVersions = {
  history(name: string): Promise<SkillHistory>;
  /** Keeps `files` as the skill's newest version, now its current one; drops the oldest beyond the
   * limits. */
  record(name: string, files: BundleFile[], changelog: string): Promise<SkillVersion>;
  /** Makes `version` (kept) the current one: its files were put back in the folder; undefined: the
   * folder was removed. */
  setCurrent(name: string, version: string | undefined): Promise<void>;
  /** The files of a kept version; undefined when it is not kept. */
  filesOf(name: string, version: string): Promise<BundleFile[] | undefined>;
};

/** The digest of a skill's files, whatever their order. */
export function hashOf(files: BundleFile[]): string {
  const hash = createHash("sha256");
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`${Buffer.byteLength(file.path)}:${file.path}:${file.data.byteLength}:`);
    hash.update(file.data);
  }
  return `sha256:${hash.digest("hex")}`;
}

const keyOf = (name: string) => createHash("sha256").update(name).digest("hex").slice(0, 32);

/** The versions kept in `dir` (created as the first is kept). `stillThere` is awaited before each
 * write, and throws once the session is gone: its state is removed, and not to be made again. */
export function skillVersions(dir: string, stillThere: () => Promise<unknown> = async () => {}, limits: VersionLimits = VERSION_LIMITS): SkillVersions {
  const folderOf = (name: string) => join(dir, keyOf(name));
  const indexOf = (name: string) => join(folderOf(name), "index.json");

  async function history(name: string): Promise<SkillHistory> {
    const text = await readFile(indexOf(name), "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (text === undefined) return { name, next: 1, versions: [] };
    try {
      return JSON.parse(text) as SkillHistory;
    } catch {
      // An index damaged from outside (it is written whole, then renamed) loses the list, not the skill's writes;
      // its versions' folders are written over as the numbers come round again.
      return { name, next: 1, versions: [] };
    }
  }

  async function save(history: SkillHistory): Promise<void> {
    const temp = `${indexOf(history.name)}.${randomBytes(6).toString("hex")}`;
    await writeFile(temp, JSON.stringify(history), { mode: 0o600 });
    await rename(temp, indexOf(history.name));
  }

  return {
    history,
    async record(name, files, changelog) {
      await stillThere();
      const before = await history(name);
      const version: SkillVersion = {
        version: String(before.next),
        created_at: new Date().toISOString(),
        hash: hashOf(files),
        files: files.length,
        size_bytes: files.reduce((sum, file) => sum + file.data.byteLength, 0),
        changelog,
      };
      // Written whole under a hidden name, then renamed: a version listed is a version there.
      const temp = join(folderOf(name), `.new-${randomBytes(6).toString("hex")}`);
      for (const file of files) {
        await mkdir(dirname(join(temp, file.path)), { recursive: true, mode: 0o700 });
        await writeFile(join(temp, file.path), file.data, { mode: 0o600 });
      }
      await mkdir(temp, { recursive: true, mode: 0o700 });
      // One left by a write that stopped before its index was saved is no version.
      await rm(join(folderOf(name), version.version), { recursive: true, force: true });
      await rename(temp, join(folderOf(name), version.version));
      const versions = [...before.versions, version];
      const dropped: SkillVersion[] = [];
      const bytes = () => versions.reduce((sum, v) => sum + v.size_bytes, 0);
      while (versions.length > 1 && (versions.length > limits.maxVersions || bytes() > limits.maxBytes)) dropped.push(versions.shift()!);
      await save({ name, next: before.next + 1, current: version.version, versions });
      for (const old of dropped) await rm(join(folderOf(name), old.version), { recursive: true, force: true });
      return version;
    },
    async setCurrent(name, version) {
      await stillThere();
      const { current: _, ...before } = await history(name);
      if (before.versions.length) await save({ ...before, ...(version !== undefined && { current: version }) });
    },
    async filesOf(name, version) {
      const kept = (await history(name)).versions.find((v) => v.version === version);
      if (!kept) return undefined;
      return readTree(join(folderOf(name), kept.version));
    },
  };
}

/** The files below `top`, by their paths from it. */
async function readTree(top: string): Promise<BundleFile[]> {
  const entries = await readdir(top, { recursive: true, withFileTypes: true });
  const files: BundleFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.push({ path: path.slice(top.length + 1), data: new Uint8Array(await readFile(path)) });
  }
  return files;
}
