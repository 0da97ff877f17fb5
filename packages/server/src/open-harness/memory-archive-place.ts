// Where a session's memory archive is: the auto memory directory its runs have (@harness/agent's
// runAutoMemory, with the settings and environment a run in its workspace reads), when auto memory
// is on for it; and, when it is off, what turned it off, for the 409 that says so.
import { switchSet } from "@harness/llm/env-switch";
import { runAutoMemory } from "@harness/agent/run-auto-memory";
import { ApiError } from "./errors.ts";
import { labelOf } from "./memory-label.ts";
import type { SessionSettings } from "./session-settings.ts";

/** The session's auto memory directory; undefined while auto memory is off for it. */
export async function autoMemoryDir(settings: SessionSettings): Promise<string | undefined> {
  const { place, loaded } = settings;
  return (await runAutoMemory({ cwd: place.cwd, home: place.home }, { ...process.env, ...loaded.settings.env }, loaded, () => {}))?.dir;
}

/** The session's auto memory directory, where its archive is; 409 naming what turned it off. */
export async function archiveDir(settings: SessionSettings, operation: string): Promise<string> {
  const dir = await autoMemoryDir(settings);
  if (dir !== undefined) return dir;
  throw new ApiError(409, "auto_memory_disabled", `auto memory is off for this session, and the archive is kept in its directory: ${whyOff(settings)}`, operation);
}

function whyOff(settings: SessionSettings): string {
  const { place, loaded } = settings;
  const where = (file: string) => labelOf(file, place.cwd, place.home);
  const VAR = "CLAUDE_CODE_DISABLE_AUTO_MEMORY";
  if (switchSet({ ...process.env, ...loaded.settings.env }, VAR) === true) {
    const source = loaded.sources.findLast((s) => s.settings.env?.[VAR] !== undefined);
    return `${VAR} is set${source ? ` in the env of ${where(source.path)}` : " in the server's environment"}: remove it (or set it to 0) to turn auto memory on`;
  }
  const source = loaded.sources.find((s) => s.settings.autoMemoryEnabled === false);
  return source ? `autoMemoryEnabled is false in ${where(source.path)}: set it to true (or remove it) to turn auto memory on` : "turn it on with autoMemoryEnabled: true in the settings";
}
