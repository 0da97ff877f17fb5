// Paths outside `.git` that a repository's own config makes part of git's configuration: the hooks
// directory it names (core.hooksPath, as husky sets it) and the files it includes (include.path,
// includeIf.*.path, a shared config kept in the repository). A sandboxed command that wrote one
// would have git, run outside the sandbox, run programs of its choosing.
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { isWithin } from "../files/real-paths.ts";

export type GitConfigPaths = { hooks: string[]; includes: string[] };

const KEYS = "^(core\\.hookspath|include\\.path|includeif\\..*\\.path)$";

/** The paths of the config in `<root>/.git/config` of each root that lie in one of `writable`. The
 * config is only read (`git config --file`, which neither follows includes nor runs anything); a
 * root with no such file, or a machine without git, has none. */
export function gitConfigPaths(roots: readonly string[], writable: readonly string[]): GitConfigPaths {
  const out: GitConfigPaths = { hooks: [], includes: [] };
  for (const root of roots) {
    const gitDir = path.join(root, ".git");
    for (const { key, value } of configEntries(path.join(gitDir, "config"))) {
      const hooks = key === "core.hookspath";
      // A relative hooks path is from the working tree's top, a relative include from the file's directory.
      const target = resolve(value, hooks ? root : gitDir);
      if (!writable.some((dir) => isWithin(target, dir))) continue;
      if (!hooks) out.includes.push(target);
      // Husky's hooks (`.husky/_`, since version 9) run the scripts of the directory above them.
      else out.hooks.push(path.basename(target) === "_" ? path.dirname(target) : target);
    }
  }
  return { hooks: [...new Set(out.hooks)], includes: [...new Set(out.includes)] };
}

function configEntries(file: string): { key: string; value: string }[] {
  let text: string;
  try {
    text = execFileSync("git", ["config", "--file", file, "--null", "--get-regexp", KEYS], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 });
  } catch {
    // No file, no such key (exit 1), or no git.
    return [];
  }
  // With --null: each entry is the key, a newline, the value, then NUL.
  return text
    .split("\0")
    .filter(Boolean)
    .map((entry) => {
      const cut = entry.indexOf("\n");
      return cut === -1 ? { key: entry, value: "" } : { key: entry.slice(0, cut), value: entry.slice(cut + 1) };
    })
    .filter((entry) => entry.value !== "");
}

function resolve(value: string, base: string): string {
  if (value === "~") return os.homedir();
  if (value.startsWith("~/")) return path.join(os.homedir(), value.slice(2));
  return path.resolve(base, value);
}
