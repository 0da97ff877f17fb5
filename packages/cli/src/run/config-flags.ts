// The configuration `harness run` takes on its command line, as `claude -p` does: --mcp-config,
// --strict-mcp-config, --settings, --setting-sources, --add-dir and --tools, read and checked
// before the run starts. A mistake in them is the command's (one line naming the flag, exit 1),
// not a notice of the run: a script that asked for a server or a setting must not run without it.
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { RunAgentOptions } from "@harness/agent";
import type { RunCommand } from "./run.ts";
import { isJsonObject } from "@harness/agent/json-text";

export type RunConfigOptions = Pick<RunAgentOptions, "mcpConfig" | "strictMcpConfig" | "flagSettings" | "settingSources" | "additionalDirectories" | "builtinTools">;

const SETTING_SOURCES = ["user", "project", "local"] as const;

/** The run options of the command's configuration flags, or a one-line error; `warnings` are
 * lines to show that do not stop the run. Paths are relative to `typedIn`, where the command was
 * typed (as a path on its command line is, not --cwd). */
export async function runConfigOptions(
  command: Pick<RunCommand, "mcpConfig" | "strictMcpConfig" | "settings" | "settingSources" | "addDirs" | "tools">,
  typedIn: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ ok: true; options: RunConfigOptions; warnings: string[] } | { ok: false; message: string }> {
  if (![command.mcpConfig, command.strictMcpConfig, command.settings, command.settingSources, command.addDirs, command.tools].some((given) => given !== undefined)) {
    return { ok: true, options: {}, warnings: [] };
  }
  const checks = await import("@harness/agent/config-checks");
  const options: RunConfigOptions = {};
  const warnings: string[] = [];
  try {
    if (command.mcpConfig) {
      options.mcpConfig = command.mcpConfig.map((value) => {
        const { file, json } = readJson("--mcp-config", value, typedIn);
        if (!isJsonObject(json) || !isJsonObject(json.mcpServers)) throw new FlagError(`--mcp-config: ${file} needs an "mcpServers" object, as in .mcp.json: {"mcpServers": {"name": {"command": "…"}}}`);
        for (const [name, raw] of Object.entries(json.mcpServers)) {
          const parsed = checks.parseServerEntry(name, raw, { scope: "flag", file, keyPrefix: `mcpServers.${name}` }, env);
          if (!parsed.ok) throw new FlagError(`--mcp-config${where(file, parsed.diagnostic.key, "--mcp-config")}: ${parsed.diagnostic.message}`);
        }
        return { file, servers: json.mcpServers };
      });
    }
    if (command.strictMcpConfig) options.strictMcpConfig = true;
    if (command.settings !== undefined) {
      const { file, json } = readJson("--settings", command.settings, typedIn);
      const [problem] = checks.validateSettings(json, file).diagnostics;
      if (problem) throw new FlagError(`--settings${where(problem.file, problem.key, "--settings")}: ${problem.message}`);
      options.flagSettings = { file, settings: json };
    }
    if (command.settingSources !== undefined) options.settingSources = settingSources(command.settingSources);
    if (command.addDirs) options.additionalDirectories = command.addDirs.map((dir) => directory(dir, typedIn));
    if (command.tools) {
      const names = command.tools.flatMap((value) => value.split(/[\s,]+/)).filter((name) => name !== "");
      if (!names.includes("default")) {
        const known = new Set(checks.builtinToolNames());
        const unknown = names.filter((name) => !known.has(name));
        // Claude Code has tools this harness has not: a script written for it still runs.
        if (unknown.length > 0) warnings.push(`--tools: ${unknown.map((name) => `"${name}"`).join(", ")} ${unknown.length === 1 ? "is not a built-in tool here" : "are not built-in tools here"}, and left out (the names are case-sensitive: ${[...known].join(", ")})`);
        options.builtinTools = names.filter((name) => known.has(name));
      }
    }
  } catch (error) {
    if (error instanceof FlagError) return { ok: false, message: error.message };
    throw error;
  }
  return { ok: true, options, warnings };
}

class FlagError extends Error {}

/** A value that is JSON itself (it starts with "{"), or the path of a file holding it. `file` is
 * what messages call it. */
function readJson(flag: string, value: string, typedIn: string): { file: string; json: unknown } {
  const inline = value.trimStart().startsWith("{");
  const file = inline ? flag : resolve(typedIn, value);
  let text = value;
  if (!inline) {
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (error as Error).message;
      throw new FlagError(`${flag}: cannot read ${file}: ${why} (the value is a file, or JSON starting with "{")`);
    }
  }
  try {
    return { file, json: JSON.parse(text) };
  } catch (error) {
    throw new FlagError(`${flag}: ${inline ? "the value" : file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Where in a flag's value a problem is: the file and the key, or only the key for JSON given
 * inline (whose `file` is the flag itself). */
function where(file: string, key: string | undefined, flag: string): string {
  const keyed = key === undefined ? "" : ` (${key})`;
  return file === flag ? keyed : `: ${file}${keyed}`;
}

function settingSources(value: string): (typeof SETTING_SOURCES)[number][] {
  const names = value.split(",").map((name) => name.trim()).filter((name) => name !== "");
  return names.map((name) => {
    const source = SETTING_SOURCES.find((s) => s === name);
    if (!source) throw new FlagError(`--setting-sources: "${name}" is not a settings source; the sources are ${SETTING_SOURCES.join(", ")}, separated by commas`);
    return source;
  });
}

function directory(dir: string, typedIn: string): string {
  const path = resolve(typedIn, dir);
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    // Said below.
  }
  if (!isDirectory) throw new FlagError(`--add-dir: ${path} is not a directory${/\s/.test(dir) ? "" : ` (a prompt after --add-dir goes after --: -- "${dir}")`}`);
  return path;
}

