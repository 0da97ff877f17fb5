// Repositories nested in the workspace (a project cloned into it, a submodule's checkout). Left to
// itself, `git add` records such a directory as a gitlink (the commit its HEAD names; a refusal when
// it has none) and never reads its files, so a rewind would leave all that a run did there. The
// shadow index takes their files like any others instead: once it holds a path under a directory,
// `git add` walks that directory as a plain one (a .git in it is never added). A placeholder entry is
// that first path; the next `git add --all` drops it (there is no such file) as it adds the real ones.

const EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
const PLACEHOLDER = ".harness-nested-repository";

/** Whether `git add` output says it recorded a nested repository as a gitlink (which ones: see gitlinks). */
export function addedGitlink(stderr: string): boolean {
  return stderr.includes("adding embedded git repository");
}

/** The nested repositories without a commit that `git add` refused to add (its failure message). */
export function refusedRepositories(failure: string): string[] {
  return [...failure.matchAll(/'([^']+)' does not have a commit checked out/g)].map((m) => m[1].replace(/\/$/, ""));
}

/** The gitlinks in `git ls-files --stage -z` output. */
export function gitlinks(stage: string): string[] {
  return stage
    .split("\0")
    .filter((record) => record.startsWith("160000 "))
    .map((record) => record.slice(record.indexOf("\t") + 1));
}

/** `git update-index` arguments that replace each repository's gitlink (if any) by a placeholder file in it. */
export function unfoldArgs(paths: readonly string[]): string[] {
  return ["update-index", "--add", "--replace", ...paths.flatMap((path) => ["--cacheinfo", `100644,${EMPTY_BLOB},${path}/${PLACEHOLDER}`])];
}
