// The versions of a session's workspace skills over the Open Harness API (session_id in the query):
// listed (the folder as it is now kept first when it was changed outside the API), rolled back to
// (a kept version put back whole, as register puts a skill, once the runs' loader takes it; one
// uninstalled, or changed so that the runs no longer load it, too) and
// upgraded (a new bundle in place of the skill's folder, kept as its newest version).
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { H, handle, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import { formBundle, ownSkill, shapeNow, skillPlace, skillsInTurn, versionedSkill } from "./routes-skills-write.ts";
import { stillOwned } from "./session-of.ts";
import { refuseInvalid, validateBundle } from "./skill-files.ts";
import { keepBeforeChange, seeSkill } from "./skill-history.ts";
import { replaceSkill } from "./skill-install.ts";
import { VersionId, versionFiles } from "./skill-version-files.ts";

const RollbackBody = z.strictObject({ version: VersionId });
const Changelog = z.string().trim().min(1, "must not be empty").max(1000, "must be at most 1000 characters");

export function mountSkillVersionRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/skills/:skillId/versions`,
    handle(async (c) => {
      const at = await skillPlace(oh, c, "skills.listVersions");
      const answer = await skillsInTurn(oh, at, async (now) => {
        const skill = await versionedSkill(now, c.req.param("skillId")!, "skills.listVersions");
        const seen = await seeSkill(at.versions, at.root, skill.name);
        const { history } = seen;
        return {
          skill_id: skill.name,
          // None when what is there now could not be kept.
          current_version: seen.unkept === undefined ? (history.current ?? "") : "",
          versions: [...history.versions].reverse(),
          ...(seen.unkept !== undefined && { warning: `the skill as it is now is no kept version: ${seen.unkept}` }),
        };
      });
      return c.json(answer);
    }),
  );
  app.post(
    `${H}/skills/:skillId/rollback`,
    handle(async (c) => {
      const at = await skillPlace(oh, c, "skills.rollback");
      const { version } = check(RollbackBody, await bodyOf(c));
      const { name, previous } = await skillsInTurn(oh, at, async (now) => {
        const skill = await versionedSkill(now, c.req.param("skillId")!, "skills.rollback");
        // Read first: keeping what is there may drop the oldest version, which may be this one.
        const files = await versionFiles(at.versions, skill.name, version, "skills.rollback");
        const { history, seen } = await keepBeforeChange(at.versions, at.root, skill.name, "skills.rollback");
        if (history.current !== version || !seen.files) {
          // A version changed by hand may not load: it is put back only if the runs would read it.
          refuseInvalid(await validateBundle({ files, folder: skill.name }), "skills.rollback");
          await replaceSkill(at.root, skill.name, files, stillOwned(oh, c, at.sessionId));
          const stillKept = (await at.versions.history(skill.name)).versions.some((v) => v.version === version);
          if (stillKept) await at.versions.setCurrent(skill.name, version);
          else await at.versions.record(skill.name, files, `version ${version} put back`);
        }
        return { name: skill.name, previous: history.current ?? "" };
      });
      return c.json({ skill: await shapeNow(oh, at, name), previous_version: previous });
    }),
  );
  app.post(
    `${H}/skills/:skillId/upgrade`,
    handle(async (c) => {
      const at = await skillPlace(oh, c, "skills.upgrade");
      const id = c.req.param("skillId")!;
      const { bundle, fields } = await formBundle(c, "skills.upgrade", ["changelog"]);
      const changelog = fields.has("changelog") ? check(Changelog, fields.get("changelog"), "changelog") : undefined;
      const name = refuseInvalid(await validateBundle(bundle), "skills.upgrade");
      if (name !== id) throw new ApiError(400, "invalid_request", `files: the bundle is the skill "${name}", not "${id}": an upgrade keeps the skill's name`, "skills.upgrade");
      const previous = await skillsInTurn(oh, at, async (now) => {
        const skill = ownSkill(now, id, "skills.upgrade");
        const { history } = await keepBeforeChange(at.versions, at.root, skill.name, "skills.upgrade");
        await replaceSkill(at.root, skill.name, bundle.files, stillOwned(oh, c, at.sessionId));
        await at.versions.record(skill.name, bundle.files, changelog ?? "upgraded");
        return history.current ?? "";
      });
      return c.json({ skill: await shapeNow(oh, at, id), previous_version: previous });
    }),
  );
}
