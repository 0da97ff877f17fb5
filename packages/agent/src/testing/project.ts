// A user's machine in two temp directories, for tests of whole runs: a home (`~/.claude/...`) and a
// project (CLAUDE.md, .claude/settings.json, .mcp.json…), and a way to run the agent there.
import fs from "node:fs/promises";
import path from "node:path";
import type { TestContext } from "node:test";
import type { AgentEvent } from "@harness/protocol";
import { runAgent } from "../loop/run-agent.ts";
import type { RunAgentOptions, RunAgentResult } from "../types.ts";
import { tempWorkspace } from "./fixtures.ts";
import { scriptedProvider, type ScriptedProvider, type ScriptedStep } from "./scripted-provider.ts";

export type TempProject = {
  home: string;
  /** The project root and working directory. */
  root: string;
  /** Writes a file below the project root (directories made as needed); returns its path. */
  write(relative: string, content: string | Uint8Array, mode?: number): Promise<string>;
  /** Writes a file below the home directory. */
  writeHome(relative: string, content: string): Promise<string>;
  /** Writes `.claude/settings.json` (or the local or user scope's file). */
  settings(value: Record<string, unknown>, scope?: "project" | "local" | "user"): Promise<void>;
  /** Writes an executable bash script to `.claude/hooks/<name>` and returns the hook command. */
  hook(name: string, body: string): Promise<string>;
  exists(relative: string): Promise<boolean>;
  read(relative: string): Promise<string>;
};

export async function tempProject(t: TestContext): Promise<TempProject> {
  const home = await tempWorkspace(t);
  const root = await tempWorkspace(t);
  const writeUnder = async (base: string, relative: string, content: string | Uint8Array, mode?: number) => {
    const file = path.join(base, relative);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content, mode === undefined ? undefined : { mode });
    return file;
  };
  return {
    home,
    root,
    write: (relative, content, mode) => writeUnder(root, relative, content, mode),
    writeHome: (relative, content) => writeUnder(home, relative, content),
    async settings(value, scope = "project") {
      const file = scope === "user" ? path.join(home, ".claude", "settings.json") : path.join(root, ".claude", scope === "local" ? "settings.local.json" : "settings.json");
      await writeUnder(path.dirname(file), path.basename(file), JSON.stringify(value, null, 2));
    },
    async hook(name, body) {
      await writeUnder(root, path.join(".claude", "hooks", name), `#!/usr/bin/env bash\n${body}\n`, 0o755);
      return `"$CLAUDE_PROJECT_DIR/.claude/hooks/${name}"`;
    },
    exists: (relative) =>
      fs.access(path.join(root, relative)).then(
        () => true,
        () => false,
      ),
    read: (relative) => fs.readFile(path.join(root, relative), "utf8"),
  };
}

export type ProjectRun = { result: RunAgentResult; events: AgentEvent[]; provider: ScriptedProvider };

/** Runs the agent in the project with a scripted model, reading the project's and the temp home's
 * configuration (and no managed settings). */
export async function runInProject(project: TempProject, steps: ScriptedStep[] | ScriptedProvider, overrides: Partial<RunAgentOptions> = {}): Promise<ProjectRun> {
  const provider = Array.isArray(steps) ? scriptedProvider(steps) : steps;
  const events: AgentEvent[] = [];
  const result = await runAgent({
    prompt: "Please help.",
    provider,
    model: "test-model",
    cwd: project.root,
    home: project.home,
    managedSettingsPath: path.join(project.home, "managed-settings.json"),
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    ...overrides,
  });
  return { result, events, provider };
}
