// skills.discover over the Open Harness API (session_id in the query): the skills a session's runs
// find (each already registered: a skill is registered by its folder being where the runs read it),
// and the skill folders (holding a SKILL.md) of the workspace's search_paths, which the runs do not
// read unless a skill of that name is found. Read only; nothing outside the workspace is searched.
import { posix, relative as relativePath, sep } from "node:path";
import { z } from "zod";
import type { Skill } from "@harness/agent";
import { discoverSkills } from "@harness/agent/discover-skills";
import { bodyOf, check } from "../sessions/api.ts";
import { H, handle, harnessOf, queryOf, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import { ownSession, SessionQuery } from "./session-of.ts";
import { listFiles, openFile } from "./workspace-files.ts";
import { WorkspacePath } from "./workspace-paths.ts";

/** Of each search path, at most this many folders are looked into. */
const FOLDERS_MAX = 500;
const DiscoverBody = z.strictObject({
  search_paths: z.array(WorkspacePath, { error: "must be an array of paths in the session's workspace" }).max(20, "at most 20 paths").optional(),
});

type Discovered = { name: string; path: string; category: "user" | "plugin"; already_registered: boolean; scope?: Skill["scope"] };

/** `path` as the API shows it: in the workspace, relative; in the home, from "~/"; else absolute. */
function shownPath(path: string, root: string, home: string): string {
  const inside = (base: string) => {
    const rel = relativePath(base, path);
    return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep) ? rel.split(sep).join("/") : undefined;
  };
  const inWorkspace = inside(root);
  if (inWorkspace !== undefined) return inWorkspace;
  const inHome = inside(home);
  return inHome !== undefined ? `~/${inHome}` : path;
}

/** Whether the workspace's `folder` holds a SKILL.md file. */
async function holdsSkill(root: string, folder: string): Promise<boolean> {
  const opened = await openFile(root, folder === "" ? "SKILL.md" : `${folder}/SKILL.md`).catch(() => undefined);
  await opened?.handle.close();
  return opened !== undefined;
}

export function mountSkillDiscoverRoutes(oh: OpenHarness): void {
  oh.app.post(
    `${H}/skills/discover`,
    handle(async (c) => {
      harnessOf(c);
      const { session_id } = queryOf(c, SessionQuery);
      const body = check(DiscoverBody, await bodyOf(c));
      const userId = await ownSession(oh, c, session_id);
      const root = oh.workDirOf(userId, session_id);
      const { skills } = await discoverSkills({ home: oh.home, projectRoot: root });
      const discovered: Discovered[] = skills.map((skill) => ({
        name: skill.name,
        path: shownPath(skill.baseDir, root, oh.home),
        category: skill.scope === "plugin" ? "plugin" : "user",
        already_registered: true,
        scope: skill.scope,
      }));
      const seen = new Set(discovered.map((d) => d.path));
      const names = new Set(skills.map((skill) => skill.name));
      for (const path of body.search_paths ?? []) {
        const { files } = await listFiles(root, path, false).catch((error: unknown) => {
          if (error instanceof ApiError) throw new ApiError(error.status, error.code, `search_paths: ${error.message}`, "skills.discover");
          throw error;
        });
        const folders = [path, ...files.filter((file) => file.type === "directory").slice(0, FOLDERS_MAX).map((file) => file.path)];
        for (const folder of folders) {
          if (folder === "" || seen.has(folder) || !(await holdsSkill(root, folder))) continue;
          seen.add(folder);
          const name = posix.basename(folder);
          discovered.push({ name, path: folder, category: "user", already_registered: names.has(name) });
        }
      }
      return c.json({ discovered });
    }),
  );
}
