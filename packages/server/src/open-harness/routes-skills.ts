// Skills over the Open Harness API, read: those a session's runs work with. The names are
// those its last run reported (run.ready); before its first run, those the run would find (the
// user's and the workspace's .claude/skills). What each says of itself comes from its SKILL.md,
// found as the runs find it (@harness/agent's discoverSkills). Installing, changing and removing
// the workspace's skills is in routes-skills-write.ts.
import { stat } from "node:fs/promises";
import type { Context } from "hono";
import { z } from "zod";
import type { Skill } from "@harness/agent";
import { discoverSkills } from "@harness/agent/discover-skills";
import { ApiError } from "./errors.ts";
import { H, handle, harnessOf, queryOf, type OpenHarness } from "./common.ts";
import { SessionQuery, sessionOf } from "./session-of.ts";
import { page, PaginationSchema } from "./shapes.ts";

const Category = z.enum(["user", "plugin", "builtin", "organization"]);
const ListQuery = PaginationSchema.extend({ session_id: SessionQuery.shape.session_id, category: Category.optional() }).passthrough();

type SkillShape = {
  id: string;
  name: string;
  description: string;
  version: string;
  vendor: string;
  category: z.infer<typeof Category>;
  scope?: "user" | "project" | "plugin";
  created_at: string;
  updated_at: string;
};

/** The skills of the session the query names, sorted by name. A skill the run had whose file is not
 * found here (a plugin's, Claude Code's own, a command offered as a skill) has its name only:
 * "plugin" when it is namespaced (`plugin:skill`), else "builtin". */
export async function skillsOf(oh: OpenHarness, c: Context): Promise<SkillShape[]> {
  harnessOf(c);
  const { session_id } = queryOf(c, SessionQuery);
  const { userId, read } = await sessionOf(oh, c, session_id);
  const found = await discoverSkills({ home: oh.home, projectRoot: oh.workDirOf(userId, session_id) });
  const files = new Map(found.skills.map((skill) => [skill.name, skill]));
  const names = read.state.available?.skills ?? found.skills.map((skill) => skill.name);
  return Promise.all([...new Set(names)].sort().map((name) => skillShape(oh, name, files.get(name))));
}

/** The skill `name` as the API shows it, from its file when it has one. */
export async function skillShape(oh: OpenHarness, name: string, file: Skill | undefined): Promise<SkillShape> {
  const changed = file ? await stat(file.path).then((s) => s.mtime.toISOString(), () => undefined) : undefined;
  const at = changed ?? oh.startedAt;
  const category = file ? (file.scope === "plugin" ? "plugin" : "user") : name.includes(":") ? "plugin" : "builtin";
  return { id: name, name, description: file?.description ?? "", version: "", vendor: "", category, ...(file && { scope: file.scope }), created_at: at, updated_at: at };
}

/** The session's skill `id`, or 404 skill_not_found. */
export async function skillOf(oh: OpenHarness, c: Context, id: string): Promise<SkillShape> {
  const skill = (await skillsOf(oh, c)).find((s) => s.id === id);
  if (!skill) throw new ApiError(404, "skill_not_found", `no skill "${id}" for the session's runs (skills are read from .claude/skills in the workspace and the user's home)`);
  return skill;
}

export function mountSkillRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/skills`,
    handle(async (c) => {
      const query = queryOf(c, ListQuery);
      const all = await skillsOf(oh, c);
      return c.json(page(all.filter((skill) => (query.category ?? skill.category) === skill.category), query));
    }),
  );
  app.get(
    `${H}/skills/:skillId`,
    handle(async (c) => {
      return c.json({ skill: await skillOf(oh, c, c.req.param("skillId")!) });
    }),
  );
}
