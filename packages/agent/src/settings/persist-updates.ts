// Permission updates kept in a settings file, as Claude Code writes them when an approval says
// "always" for the user (~/.claude/settings.json), the project (.claude/settings.json) or this
// machine's copy of the project (.claude/settings.local.json).
import path from "node:path";
import { writeFileAtomically } from "../files/atomic-write.ts";
import { JsonObjectFileError, readJsonObjectFile } from "../files/json-object-file.ts";
import { makeDirsSync } from "../files/make-dirs.ts";
import { destinationFile, ruleValueText, type PermissionUpdate, type UpdateWhere } from "../permissions/updates.ts";
import { isJsonObject } from "../config/json-text.ts";

/** Writes the updates whose destination is a settings file into that file, keeping everything
 * else in it; a file that is not a JSON object is left alone. Returns what could not be written,
 * one message per file. */
export function persistPermissionUpdates(updates: readonly PermissionUpdate[], where: UpdateWhere): string[] {
  const byFile = new Map<string, PermissionUpdate[]>();
  for (const change of updates) {
    const file = destinationFile(change.destination, where);
    if (file === undefined) continue;
    byFile.set(file, [...(byFile.get(file) ?? []), change]);
  }
  const problems: string[] = [];
  for (const [file, changes] of byFile) {
    try {
      writeSettings(file, changes, where.cwd);
    } catch (error) {
      const reason = error instanceof JsonObjectFileError ? `it ${error.reason}` : (error as Error).message;
      problems.push(`The permission changes for ${file} were not kept there: ${reason}`);
    }
  }
  return problems;
}

function writeSettings(file: string, changes: readonly PermissionUpdate[], cwd: string): void {
  const settings = readJsonObjectFile(file)?.value ?? {};
  const permissions: Record<string, unknown> = isJsonObject(settings.permissions) ? { ...settings.permissions } : {};
  const list = (key: string): string[] => (Array.isArray(permissions[key]) ? (permissions[key] as unknown[]).filter((item): item is string => typeof item === "string") : []);
  for (const change of changes) {
    if (change.type === "setMode") permissions.defaultMode = change.mode;
    else if (change.type === "addDirectories" || change.type === "removeDirectories") {
      const dirs = change.directories.map((dir) => path.resolve(cwd, dir));
      const kept = list("additionalDirectories").filter((dir) => !dirs.includes(path.resolve(cwd, dir)));
      permissions.additionalDirectories = change.type === "addDirectories" ? [...kept, ...dirs] : kept;
    } else {
      const texts = change.rules.map(ruleValueText);
      const current = change.type === "replaceRules" ? [] : list(change.behavior);
      permissions[change.behavior] = change.type === "removeRules" ? current.filter((text) => !texts.includes(text)) : [...current, ...texts.filter((text) => !current.includes(text))];
    }
  }
  makeDirsSync(path.dirname(file));
  writeFileAtomically(file, `${JSON.stringify({ ...settings, permissions }, null, 2)}\n`);
}
