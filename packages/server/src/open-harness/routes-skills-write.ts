// Registering, changing, uninstalling, downloading and validating a session's skills over the Open
// Harness API (session_id in the query, as the read routes take it): the folders of .claude/skills in
// its workspace, each SKILL.md and the files it brings. A bundle is checked by the runs' own loader
// first (skill-files.ts); the session's next run reads the change. The user's skills (~/.claude/skills)
// and plugins' are read only. An install and an uninstall are told to the event feed (skill.installed,
// skill.uninstalled).
import { Readable } from "node:stream";
import type { Context } from "hono";
import { z } from "zod";
import type { Skill } from "@harness/agent";
import { discoverSkills } from "@harness/agent/discover-skills";
import { bodyOf, check } from "../sessions/api.ts";
import { changedAgentText } from "./agent-files.ts";
import { refuseHome } from "./agent-writes.ts";
import { H, handle, harnessOf, queryOf, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import { formOf } from "./multipart.ts";
import { inTurn } from "./one-at-a-time.ts";
import { skillShape } from "./routes-skills.ts";
import { ownSession, SessionQuery, stillOwned } from "./session-of.ts";
import { bundleOf, refuseInvalid, SKILL_MAX_BYTES, SKILL_MAX_FILES, validateBundle, type Bundle } from "./skill-files.ts";
import { installSkill, SKILLS_DIR, uninstallSkill } from "./skill-install.ts";
import { folderFiles, keepBeforeChange, seeSkill } from "./skill-history.ts";
import { hashOf, skillVersions, type SkillVersions } from "./skill-versions.ts";
import { VersionId, versionEntries } from "./skill-version-files.ts";
import { downloadEntries } from "./workspace-batch.ts";
import { openFile, writeFileAt } from "./workspace-files.ts";
import { zipOf } from "./zip-writer.ts";

const FORM_SLACK = 1024 * 1024;
const Category = z.literal("user", { error: "must be user: the workspace's skills are the user's category (plugin, builtin and organization skills are not registered here)" });
const Metadata = z.strictObject({ display_title: z.string({ error: "must be a string" }).trim().min(1, "must not be empty").max(100, "must be at most 100 characters").optional(), category: Category.optional() });
const UpdateBody = Metadata.extend({ description: z.string({ error: "must be a string" }).trim().min(1, "must not be empty").max(4000, "must be at most 4000 characters").optional() });
const DownloadQuery = SessionQuery.extend({ version: VersionId.optional() });

export type SkillPlace = { root: string; userId: string; sessionId: string; skills: Skill[]; versions: SkillVersions };

/** The session the query names, where its runs work, the skills they find there and the versions
 * kept of them. */
export async function skillPlace(oh: OpenHarness, c: Context, operation: string): Promise<SkillPlace> {
  harnessOf(c);
  const { session_id } = queryOf(c, SessionQuery);
  const userId = await ownSession(oh, c, session_id);
  const root = oh.workDirOf(userId, session_id);
  if (c.req.method !== "GET") refuseHome(root, oh.home, operation);
  const { skills } = await discoverSkills({ home: oh.home, projectRoot: root });
  return { root, userId, sessionId: session_id, skills, versions: skillVersions(oh.skillVersionsOf(userId, session_id), stillOwned(oh, c, session_id)) };
}

/** `work` given the place with its skills read once the API's writes of the workspace's skills
 * before it are done: what it finds there is still so when it writes. */
export async function skillsInTurn<T>(oh: OpenHarness, at: SkillPlace, work: (now: SkillPlace) => Promise<T>): Promise<T> {
  return inTurn(`skills ${at.root}`, async () => work({ ...at, skills: (await discoverSkills({ home: oh.home, projectRoot: at.root })).skills }));
}

/** The workspace's own skill `id` (its folder .claude/skills/<id>): 404 when the runs find none by
 * that name, 403 naming the scope of one that is not the workspace's. */
export function ownSkill(at: SkillPlace, id: string, operation: string): Skill {
  const skill = at.skills.find((s) => s.name === id);
  if (!skill) throw new ApiError(404, "skill_not_found", `no skill "${id}" with a folder the session's runs read (the workspace's and the user's .claude/skills, the plugins')`, operation);
  if (skill.scope !== "project") {
    const why = skill.scope === "user" ? "is the user's, in ~/.claude/skills of the server's home, which this API does not write" : "comes with a plugin";
    throw new ApiError(403, "forbidden", `skill "${id}" (scope ${skill.scope}) ${why}: only the workspace's skills (scope project) are changed over this API`, operation);
  }
  return skill;
}

/** As ownSkill, and also a skill the runs do not find (its folder gone, or not loading) of which
 * versions are kept, which can be listed, downloaded and rolled back to. */
export async function versionedSkill(at: SkillPlace, id: string, operation: string): Promise<{ name: string }> {
  if (!at.skills.some((s) => s.name === id) && (await at.versions.history(id)).versions.length > 0) return { name: id };
  return ownSkill(at, id, operation);
}

/** The bundle of a form's files (`files` or `files[]`, each by its path), its metadata and its other
 * fields (those of `known`). */
export async function formBundle(c: Context, operation: string, known: string[]): Promise<{ bundle: Bundle; metadata: z.infer<typeof Metadata>; fields: Map<string, string> }> {
  const form = await formOf(c, SKILL_MAX_BYTES + FORM_SLACK, SKILL_MAX_FILES + 8, operation, ["files", "files[]", ...known]);
  try {
    if (form.fields.has("files") || form.fields.has("files[]")) throw new ApiError(400, "invalid_request", "files: each must be a part with a filename (its path in the skill)", operation);
    const given = [...(form.files.get("files") ?? []), ...(form.files.get("files[]") ?? [])];
    if (given.length > SKILL_MAX_FILES) throw new ApiError(413, "payload_too_large", `files: ${given.length} given, a skill brings at most ${SKILL_MAX_FILES}`, operation);
    if (given.reduce((sum, file) => sum + file.size, 0) > SKILL_MAX_BYTES) throw new ApiError(413, "payload_too_large", `files: larger than ${SKILL_MAX_BYTES / 1024 / 1024} MiB in all, the most a skill takes`, operation);
    const files = await Promise.all(given.map(async (file) => ({ name: file.name, data: new Uint8Array(await file.arrayBuffer()) })));
    const raw = form.fields.get("metadata");
    let parsed: unknown = {};
    if (raw !== undefined) {
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new ApiError(400, "invalid_request", "metadata: not valid JSON", operation);
      }
    }
    return { bundle: bundleOf(files, operation), metadata: check(Metadata, parsed, "metadata"), fields: form.fields };
  } finally {
    form.release();
  }
}

/** The skill `name` as the API shows it now, its version the current one kept. */
export async function shapeNow(oh: OpenHarness, at: SkillPlace, name: string) {
  const { skills } = await discoverSkills({ home: oh.home, projectRoot: at.root });
  const shape = await skillShape(oh, name, skills.find((s) => s.name === name));
  return { ...shape, version: (await at.versions.history(name)).current ?? "" };
}

export function mountSkillWriteRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.post(
    `${H}/skills/validate`,
    handle(async (c) => {
      harnessOf(c);
      const { bundle } = await formBundle(c, "skills.validate", ["metadata", "session_id"]);
      const { valid, errors, warnings } = await validateBundle(bundle);
      return c.json({ valid, errors, warnings });
    }),
  );
  app.post(
    `${H}/skills`,
    handle(async (c) => {
      const at = await skillPlace(oh, c, "skills.register");
      const { bundle } = await formBundle(c, "skills.register", ["metadata"]);
      const name = refuseInvalid(await validateBundle(bundle), "skills.register");
      await skillsInTurn(oh, at, async ({ skills }) => {
        const there = skills.find((s) => s.name === name);
        if (there) throw new ApiError(409, "skill_exists", `a skill "${name}" is there already (scope ${there.scope}): uninstall it first, or choose another name`, "skills.register");
        await installSkill(at.root, name, bundle.files, stillOwned(oh, c, at.sessionId));
        await at.versions.record(name, bundle.files, "registered");
      });
      oh.events.record(at.userId, "skill.installed", { skill_id: name, session_id: at.sessionId });
      return c.json({ skill: await shapeNow(oh, at, name) }, 201);
    }),
  );
  app.patch(
    `${H}/skills/:skillId`,
    handle(async (c) => {
      const at = await skillPlace(oh, c, "skills.update");
      const body = check(UpdateBody, await bodyOf(c));
      const skill = await skillsInTurn(oh, at, async (now) => {
        const skill = ownSkill(now, c.req.param("skillId")!, "skills.update");
        if (body.description === undefined) return skill;
        const relative = `${SKILLS_DIR}/${skill.name}/SKILL.md`;
        const { handle: file } = await openFile(at.root, relative);
        const text = await file.readFile("utf8").finally(() => file.close());
        const changed = Buffer.from(changedAgentText(text, { description: body.description }));
        refuseInvalid(await validateBundle({ files: [{ path: "SKILL.md", data: changed }], folder: skill.name }), "skills.update");
        const { seen } = await keepBeforeChange(at.versions, at.root, skill.name, "skills.update");
        await writeFileAt(at.root, relative, changed, true, stillOwned(oh, c, at.sessionId));
        // The same description again is no new version.
        const written = await folderFiles(at.root, skill.name);
        if ("files" in written && hashOf(written.files) !== hashOf(seen.files ?? [])) await at.versions.record(skill.name, written.files, "description changed");
        return skill;
      });
      return c.json({ skill: await shapeNow(oh, at, skill.name) });
    }),
  );
  app.delete(
    `${H}/skills/:skillId`,
    handle(async (c) => {
      const at = await skillPlace(oh, c, "skills.uninstall");
      const skill = await skillsInTurn(oh, at, async (now) => {
        const skill = ownSkill(now, c.req.param("skillId")!, "skills.uninstall");
        // Kept as it is (when it can be), so that a rollback can bring it back.
        await seeSkill(at.versions, at.root, skill.name);
        await uninstallSkill(at.root, skill.name);
        await at.versions.setCurrent(skill.name, undefined);
        return skill;
      });
      oh.events.record(at.userId, "skill.uninstalled", { skill_id: skill.name, session_id: at.sessionId });
      return c.body(null, 204);
    }),
  );
  app.get(
    `${H}/skills/:skillId/download`,
    handle(async (c) => {
      const at = await skillPlace(oh, c, "skills.download");
      const { version } = queryOf(c, DownloadQuery);
      const skill = version === undefined ? ownSkill(at, c.req.param("skillId")!, "skills.download") : await versionedSkill(at, c.req.param("skillId")!, "skills.download");
      const prefix = `${SKILLS_DIR}/`;
      const entries = version === undefined ? (await downloadEntries(at.root, [`${SKILLS_DIR}/${skill.name}`])).map((entry) => ({ ...entry, name: entry.name.slice(prefix.length) })) : await skillsInTurn(oh, at, () => versionEntries(at, skill.name, version));
      const archive = Readable.toWeb(Readable.from(zipOf(entries))) as ReadableStream;
      // Its folder's name may be anything a run gave it: a quote or a letter beyond ASCII would break the header.
      const filename = `${skill.name.replace(/[^A-Za-z0-9._-]/g, "_")}.zip`;
      return new Response(archive, { headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${filename}"` } });
    }),
  );
}
