// What every check of `harness doctor` looks at: where a run here would read its configuration,
// its settings read by the run's own loader, and the environment it would have.
import { homedir } from "node:os";
import { resolve } from "node:path";
import { harnessEnvOf } from "@harness/agent/harness-env";
import { loadRunSettings, runPlace } from "@harness/agent/run-settings";
import type { LoadedSettings } from "@harness/agent";
import type { CliIO } from "../cli.ts";
import { runConfigOptions } from "../run/config-flags.ts";

export type DoctorContext = {
  io: CliIO;
  cwd: string;
  home: string;
  projectRoot: string;
  loaded: LoadedSettings;
  /** The run's environment: the process's, with the settings' `env` as the harness takes it. */
  env: Record<string, string>;
  /** --settings as a run would be given it, or the reason it cannot be read. */
  flag: { file: string; settings: unknown } | { error: string } | undefined;
};

export async function doctorContext(command: { cwd?: string; settings?: string }, io: CliIO): Promise<DoctorContext> {
  const cwd = resolve(io.cwd, command.cwd ?? ".");
  const home = io.env.HOME || homedir();
  let flag: DoctorContext["flag"];
  if (command.settings !== undefined) {
    const read = await runConfigOptions({ settings: command.settings }, io.cwd, io.env);
    flag = read.ok ? read.options.flagSettings : { error: read.message };
  }
  const place = await runPlace({ cwd, home });
  const flagSettings = flag && "file" in flag ? flag : undefined;
  const loaded = await loadRunSettings({ cwd, home, ...(flagSettings && { flagSettings }) }, place);
  return { io, cwd, home, projectRoot: place.projectRoot, loaded, env: harnessEnvOf(io.env, loaded.sources), flag };
}
