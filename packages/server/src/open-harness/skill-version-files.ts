// A kept version of a workspace skill, as the API names it and hands it out: its id (a number,
// counting the skill's versions from 1 and never reused) and its files.
import { Readable } from "node:stream";
import { z } from "zod";
import { ApiError } from "./errors.ts";
import type { BundleFile } from "./skill-files.ts";
import type { SkillVersions } from "./skill-versions.ts";
import type { ZipEntry } from "./zip-writer.ts";

export const VersionId = z.string({ error: "must be a string" }).regex(/^[1-9][0-9]{0,9}$/, "must be a version's number, as skills.listVersions gives them");

/** The files of `version` of the skill `name`: 404 skill_version_not_found when it is not kept. */
export async function versionFiles(versions: SkillVersions, name: string, version: string, operation: string): Promise<BundleFile[]> {
  const files = await versions.filesOf(name, version);
  if (!files) {
    const kept = (await versions.history(name)).versions.map((v) => v.version);
    const which = kept.length ? `those kept are ${kept.join(", ")}` : "none is kept";
    throw new ApiError(404, "skill_version_not_found", `version: skill "${name}" has no version "${version}" (${which}; the oldest go first)`, operation);
  }
  return files;
}

/** The entries of a ZIP of `version` of the skill `name`: its files in a folder of its name. */
export async function versionEntries(at: { versions: SkillVersions }, name: string, version: string): Promise<ZipEntry[]> {
  const files = await versionFiles(at.versions, name, version, "skills.download");
  const created = (await at.versions.history(name)).versions.find((v) => v.version === version)?.created_at;
  const modified = created ? new Date(created) : new Date();
  return files
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((file) => ({ name: `${name}/${file.path}`, modified, mode: 0o100644, data: async () => Readable.from([Buffer.from(file.data)]) }));
}
