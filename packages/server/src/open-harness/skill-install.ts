// Putting a skill's folder in a session's workspace whole, and taking it away whole: its files are
// written into a hidden folder beside where it goes (the runs' loader passes by names starting with
// "."), then that folder is renamed into place in .claude/skills as it is open (inDirectory); one
// removed is renamed to a hidden name first, then deleted. A run never finds half a skill, and
// nothing is written through a link that leads out of the workspace.
import { randomBytes } from "node:crypto";
import { lstat, rename } from "node:fs/promises";
import { ApiError } from "./errors.ts";
import type { BundleFile } from "./skill-files.ts";
import { type At, inDirectory } from "./workspace-at.ts";
import { deleteAt, type SessionCheck, writeFileAt } from "./workspace-files.ts";
import { checkOpened, confined, refusalOf } from "./workspace-paths.ts";

/** Where the runs read the workspace's own skills. */
export const SKILLS_DIR = ".claude/skills";

/** Writes `files` as the folder .claude/skills/<name>; 409 skill_exists when something is there. */
export async function installSkill(root: string, name: string, files: BundleFile[], stillThere: SessionCheck): Promise<void> {
  const taken = () => new ApiError(409, "skill_exists", `${SKILLS_DIR}/${name} is there already (a folder the runs skip, or another's): uninstall it or choose another name`, "skills.register");
  await placeSkill(root, name, files, stillThere, async (at, temp) => {
    if (await lstat(at(name)).then(() => true, () => false)) throw taken();
    // A folder made there meanwhile, not empty, is not replaced.
    await rename(at(temp), at(name)).catch((error: NodeJS.ErrnoException) => {
      throw error.code === "ENOTEMPTY" || error.code === "EEXIST" ? taken() : refusalOf(error, `${SKILLS_DIR}/${name}`);
    });
  });
}

/** Writes `files` as the folder .claude/skills/<name> in place of the one there (if any): the new one
 * is written whole beside it, then the old one is renamed away and the new one into its place (a run
 * starting between the two renames finds no skill of that name, never half of one); the old one is
 * then deleted. */
export async function replaceSkill(root: string, name: string, files: BundleFile[], stillThere: SessionCheck): Promise<void> {
  const old = `.harness-old-${randomBytes(6).toString("hex")}`;
  let replaced = true;
  await placeSkill(root, name, files, stillThere, async (at, temp) => {
    await rename(at(name), at(old)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") replaced = false;
      else throw refusalOf(error, `${SKILLS_DIR}/${name}`);
    });
    await rename(at(temp), at(name)).catch(async (error: unknown) => {
      if (replaced) await rename(at(old), at(name)).catch(() => {});
      throw refusalOf(error, `${SKILLS_DIR}/${name}`);
    });
  });
  if (replaced) await deleteAt(root, `${SKILLS_DIR}/${old}`, true);
}

/** `files` written in a hidden folder of .claude/skills, then `put` (in the open .claude/skills) to
 * move it into place; the hidden folder is removed when that fails. */
async function placeSkill(root: string, name: string, files: BundleFile[], stillThere: SessionCheck, put: (at: At, temp: string) => Promise<void>): Promise<void> {
  const temp = `.harness-new-${randomBytes(6).toString("hex")}`;
  try {
    for (const file of files) await writeFileAt(root, `${SKILLS_DIR}/${temp}/${file.path}`, file.data, false, stillThere);
    const real = await confined(root, SKILLS_DIR);
    await inDirectory(real, (fd) => checkOpened(fd, root, SKILLS_DIR), (at) => put(at, temp));
  } catch (error) {
    await deleteAt(root, `${SKILLS_DIR}/${temp}`, true).catch(() => {});
    throw error;
  }
}

/** Removes the folder (or link) .claude/skills/<name>: out of the runs' sight at once, then deleted. */
export async function uninstallSkill(root: string, name: string): Promise<void> {
  const old = `.harness-old-${randomBytes(6).toString("hex")}`;
  const real = await confined(root, SKILLS_DIR);
  await inDirectory(real, (fd) => checkOpened(fd, root, SKILLS_DIR), (at) => rename(at(name), at(old))).catch((error: unknown) => {
    throw refusalOf(error, `${SKILLS_DIR}/${name}`);
  });
  await deleteAt(root, `${SKILLS_DIR}/${old}`, true);
}
