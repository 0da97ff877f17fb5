// A skill's bundle as a client uploads it (SKILL.md and the files it brings, each by its path), and
// what the runs' own loader (discoverSkills) makes of it: the bundle is laid out in a scratch
// project's .claude/skills and read there, so what is registered is what the runs will read, and a
// bundle they would skip is named with why.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Skill } from "@harness/agent";
import { discoverSkills } from "@harness/agent/discover-skills";
import { check } from "../sessions/api.ts";
import { EntryName } from "./agent-files.ts";
import { ApiError } from "./errors.ts";
import { WorkspacePath } from "./workspace-paths.ts";

/** A bundle holds at most this many files, of at most this many bytes in all (the spec's 10 MB). */
export const SKILL_MAX_FILES = 200;
export const SKILL_MAX_BYTES = 10 * 1024 * 1024;
/** A file of a bundle is at most this many folders deep in the skill's: each is made and entered
 * one by one as the skill is written (skill-install.ts), which a path of a thousand would keep busy. */
const SKILL_MAX_DEPTH = 16;
/** The longest name of a file or folder that file systems take. */
const NAME_MAX_BYTES = 255;

/** A file of a bundle: its path in the skill's folder. */
export type BundleFile = { path: string; data: Uint8Array };
/** The files with SKILL.md at their root, and the folder they came in (when they did). */
export type Bundle = { files: BundleFile[]; folder?: string };

export type ValidationIssue = { file: string; message: string; code: string };
export type Validation = { valid: boolean; errors: ValidationIssue[]; warnings: ValidationIssue[]; name?: string; skill?: Skill };

/** The bundle of `files` (named by their paths): SKILL.md at its root, or all in one folder that
 * holds it (the skill's folder, which names it). 400 naming a path that is not one. */
export function bundleOf(files: { name: string; data: Uint8Array }[], operation: string): Bundle {
  if (files.length === 0) throw new ApiError(400, "invalid_request", "files: required: SKILL.md and the files the skill brings, each a part whose filename is its path", operation);
  const paths = files.map((file) => {
    // A Windows path would be one file named with backslashes here, and a folder of that name elsewhere.
    if (file.name.includes("\\")) throw new ApiError(400, "invalid_request", `files: "${file.name}": must separate its folders with "/", not "\\"`, operation);
    const path = check(WorkspacePath, file.name, `files: "${file.name}"`);
    if (path.split("/").some((part) => Buffer.byteLength(part) > NAME_MAX_BYTES)) throw new ApiError(400, "invalid_request", `files: "${file.name}" has a name too long for the file system (at most ${NAME_MAX_BYTES} bytes between slashes)`, operation);
    return path;
  });
  const firsts = new Set(paths.map((path) => path.split("/")[0]));
  const folder = !paths.includes("SKILL.md") && firsts.size === 1 && paths.includes(`${[...firsts][0]}/SKILL.md`) ? [...firsts][0] : undefined;
  const strip = folder === undefined ? (path: string) => path : (path: string) => path.slice(folder.length + 1);
  const inside = files.map((file, i) => ({ path: strip(paths[i]!), data: file.data }));
  inside.forEach((file, i) => {
    const depth = file.path.split("/").length - 1;
    if (depth > SKILL_MAX_DEPTH) throw new ApiError(400, "invalid_request", `files: "${files[i]!.name}" is ${depth} folders deep: a skill's files are at most ${SKILL_MAX_DEPTH} deep in its folder`, operation);
  });
  const empty = inside.findIndex((file) => file.path === "");
  if (empty >= 0) throw new ApiError(400, "invalid_request", `files: "${files[empty]!.name}" names the skill's folder itself, not a file in it`, operation);
  const seen = new Set<string>();
  for (const file of inside) {
    if (seen.has(file.path)) throw new ApiError(400, "invalid_request", `files: "${file.path}" is given more than once`, operation);
    seen.add(file.path);
  }
  return { files: inside, ...(folder !== undefined && { folder }) };
}

const issue = (file: string, message: string, code: string): ValidationIssue => ({ file, message, code });

/** What the runs' loader makes of `bundle`: its name (its folder's, else SKILL.md's `name`), the
 * skill, and what is wrong (errors: it would not load, or not under that name) or worth knowing
 * (warnings: what the loader ignores in it). */
export async function validateBundle(bundle: Bundle): Promise<Validation> {
  if (!bundle.files.some((file) => file.path === "SKILL.md")) {
    return { valid: false, errors: [issue("SKILL.md", "SKILL.md is required at the root of the bundle (or of the one folder that holds it)", "missing_skill_md")], warnings: [] };
  }
  const scratch = await mkdtemp(join(tmpdir(), "harness-skill-"));
  try {
    // A folder the loader reads under the name the bundle gives, or a placeholder that tells the
    // frontmatter's name apart from its folder's.
    const dir = bundle.folder ?? `bundle-${randomBytes(6).toString("hex")}`;
    const base = join(scratch, "project", ".claude", "skills", dir);
    for (const file of bundle.files) {
      await mkdir(dirname(join(base, file.path)), { recursive: true })
        .then(() => writeFile(join(base, file.path), file.data))
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "EEXIST" && error.code !== "ENOTDIR" && error.code !== "EISDIR") throw error;
          throw new ApiError(400, "invalid_request", `files: "${file.path}" is a file and a folder of the bundle at once`);
        });
    }
    const { skills, diagnostics } = await discoverSkills({ home: join(scratch, "home"), projectRoot: join(scratch, "project") });
    const skill = skills[0];
    const issues = diagnostics
      .filter((d) => !(d.key === "name" && /differs from its directory/.test(d.message)))
      .map((d) => issue(d.file.slice(base.length + 1) || "SKILL.md", d.message.replaceAll(dir, bundle.folder ?? "the skill"), d.key ? `invalid_${d.key.replace(/-/g, "_")}` : "invalid_skill_md"));
    if (!skill) return { valid: false, errors: issues.length ? issues : [issue("SKILL.md", "the skill would not load", "invalid_skill_md")], warnings: [] };
    const errors: ValidationIssue[] = [];
    const named = skill.displayName !== dir ? skill.displayName : undefined;
    if (bundle.folder !== undefined && named !== undefined) errors.push(issue("SKILL.md", `name: "${named}" differs from the skill's folder "${bundle.folder}": they must be the same`, "name_mismatch"));
    const name = bundle.folder ?? named;
    if (name === undefined) errors.push(issue("SKILL.md", "name: missing: SKILL.md at the bundle's root needs a name in its frontmatter (or put the files in a folder named after the skill)", "missing_name"));
    else {
      const checked = EntryName.safeParse(name);
      if (!checked.success) errors.push(issue("SKILL.md", `name: "${name}" ${checked.error.issues[0]?.message ?? "is not a skill's name"}`, "invalid_name"));
    }
    return { valid: errors.length === 0, errors, warnings: issues, ...(name !== undefined && { name }), skill };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** 400 naming the errors of a bundle that does not validate. */
export function refuseInvalid(validation: Validation, operation: string): string {
  if (validation.valid && validation.name !== undefined) return validation.name;
  const why = validation.errors.map((e) => `${e.file}: ${e.message}`).join("; ");
  throw new ApiError(400, "invalid_request", `files: the skill would not load as the runs load it: ${why}`, operation);
}
