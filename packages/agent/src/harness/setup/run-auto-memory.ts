// A run's auto memory (context/auto-memory.ts): whether it is on, where its directory is, and the
// MEMORY.md found there.
import { autoMemoryDirectory, autoMemoryEnabled, canonicalGitRoot } from "../../context/auto-memory.ts";
import { loadAutoMemory } from "../../context/auto-memory-load.ts";
import type { MemoryFile } from "../../context/types.ts";
import type { LoadedSettings } from "../../settings/types.ts";
import { userConfigDir } from "../../config/user-config-dir.ts";
import { findProjectRoot } from "./project-root.ts";

export { AUTO_MEMORY_ARCHIVE } from "../../context/auto-memory-load.ts";

export type RunAutoMemory = { dir: string; index?: MemoryFile };

/** Undefined when auto memory is off. `env`: the run's environment with the settings' `env` over
 * it, where CLAUDE_CODE_DISABLE_AUTO_MEMORY is looked for. */
export async function runAutoMemory(
  where: { cwd: string; home: string },
  env: Readonly<Record<string, string | undefined>>,
  loaded: Pick<LoadedSettings, "settings" | "sources">,
  warn: (message: string) => void,
): Promise<RunAutoMemory | undefined> {
  if (!autoMemoryEnabled(env, loaded.settings)) return undefined;
  const found = await findProjectRoot(where.cwd);
  const base = found.inGitRepo ? canonicalGitRoot(found.root) : found.root;
  const place = autoMemoryDirectory({ home: where.home, configDir: userConfigDir(where.home, env), base, sources: loaded.sources });
  for (const file of place.ignored) {
    warn(`${file}: autoMemoryDirectory is ignored: settings that come with the repository cannot choose where the model writes its notes without asking. Set it in ~/.claude/settings.json instead.`);
  }
  const index = await loadAutoMemory(place.dir);
  return { dir: place.dir, ...(index && { index }) };
}
