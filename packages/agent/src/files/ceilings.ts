// Where searches upwards stop: GIT_CEILING_DIRECTORIES, read as git reads it.
import path from "node:path";

/** The directories of GIT_CEILING_DIRECTORIES (absolute paths, `:`-separated, as git reads them):
 * a search upwards for a repository, or for memory files, does not go up into one of them. A server
 * sets it to where its sessions' workspaces are, so that a workspace inside a repository (the data
 * directory of a server started in a project) is a project of its own, not part of that one. */
export function ceilingDirectories(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.GIT_CEILING_DIRECTORIES ?? "").split(":").filter((dir) => path.isAbsolute(dir)).map((dir) => path.resolve(dir));
}

/** `dir`'s parent, or undefined at the filesystem root and where the parent is a ceiling. */
export function parentBelowCeilings(dir: string, ceilings: readonly string[]): string | undefined {
  const parent = path.dirname(dir);
  return parent === dir || ceilings.includes(parent) ? undefined : parent;
}
