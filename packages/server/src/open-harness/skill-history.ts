// A workspace skill's folder against its kept versions (skill-versions.ts): what is there now is read
// (as a download reads it: confined to the workspace, links leading out left out) and, when it is not
// the version the API last put there, kept as a version of its own before anything replaces it, so
// that no change made by hand or by a run is lost to an update, an upgrade or a rollback.
import { ApiError } from "./errors.ts";
import { SKILL_MAX_BYTES, SKILL_MAX_FILES, type BundleFile } from "./skill-files.ts";
import { SKILLS_DIR } from "./skill-install.ts";
import { hashOf, type SkillHistory, type SkillVersions } from "./skill-versions.ts";
import { downloadEntries } from "./workspace-batch.ts";

/** The files of .claude/skills/<name> now, or why they are more than a version keeps, or that it is
 * not there. */
export async function folderFiles(root: string, name: string): Promise<{ files: BundleFile[] } | { tooLarge: string } | { missing: true }> {
  const prefix = `${SKILLS_DIR}/${name}/`;
  const tooLarge = { tooLarge: `it holds more than a version keeps (${SKILL_MAX_FILES} files, ${SKILL_MAX_BYTES / 1024 / 1024} MiB)` };
  const entries = await downloadEntries(root, [`${SKILLS_DIR}/${name}`]).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 413) return "too large" as const;
    if (error instanceof ApiError && error.status === 404) return "missing" as const;
    throw error;
  });
  if (entries === "too large") return tooLarge;
  if (entries === "missing") return { missing: true };
  const files: BundleFile[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (entry.data === undefined) continue;
    if (files.length === SKILL_MAX_FILES) return tooLarge;
    const stream = await entry.data();
    if (!stream) continue;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) {
      bytes += (chunk as Buffer).byteLength;
      if (bytes > SKILL_MAX_BYTES) {
        stream.destroy();
        return tooLarge;
      }
      chunks.push(chunk as Buffer);
    }
    files.push({ path: entry.name.slice(prefix.length), data: new Uint8Array(Buffer.concat(chunks)) });
  }
  return { files };
}

/** `files` are those there now (none when its folder is not there). */
export type Seen = { history: SkillHistory; files?: BundleFile[]; unkept?: string };

/** The skill's history once its folder as it is now is kept: recorded as a version when it differs
 * from the current one (or none was kept yet). `unkept` says why it could not be (too large). */
export async function seeSkill(store: SkillVersions, root: string, name: string): Promise<Seen> {
  const before = await store.history(name);
  const now = await folderFiles(root, name);
  if ("tooLarge" in now) return { history: before, unkept: now.tooLarge };
  if ("missing" in now) return { history: before };
  const current = before.versions.find((v) => v.version === before.current);
  if (current?.hash === hashOf(now.files)) return { history: before, files: now.files };
  const why = before.versions.length === 0 ? "as first found" : before.current === undefined ? "as found again" : `changed since version ${before.current}, not by this session's API calls (by hand, by a run)`;
  await store.record(name, now.files, why);
  return { history: await store.history(name), files: now.files };
}

/** As seeSkill, for a change about to replace the folder: 409 when what is there cannot be kept. */
export async function keepBeforeChange(store: SkillVersions, root: string, name: string, operation: string): Promise<{ history: SkillHistory; seen: Seen }> {
  const seen = await seeSkill(store, root, name);
  if (seen.unkept !== undefined) {
    throw new ApiError(409, "conflict", `skill "${name}" was changed outside this API and ${seen.unkept}: it would be lost; make it smaller, or uninstall it first`, operation);
  }
  return { history: seen.history, seen };
}
