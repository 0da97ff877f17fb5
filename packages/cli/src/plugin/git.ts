// The `git` binary, as marketplaces and plugins are fetched with it: shallow clones, never a
// prompt for credentials (a command that waits on one would hang a script), and a failure said
// with what git said.
import { execFile } from "node:child_process";
import { PluginError } from "./files.ts";

/** Runs `git args…` in `cwd`; resolves to its trimmed output, or rejects with a PluginError naming
 * what was being done (`doing`) and git's own last words. */
export function git(args: string[], doing: string, cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      GIT_TERMINAL_PROMPT: "0",
      // Only plain transports: not the remote helpers (`fd::`, `ext::`…) a URL in a marketplace
      // could name. The user's own list wins.
      GIT_ALLOW_PROTOCOL: process.env.GIT_ALLOW_PROTOCOL ?? "https:http:ssh:git:file",
      GIT_ASKPASS: "",
      SSH_ASKPASS: "",
      // A server that stops sending fails the command rather than hanging it: over http(s) after a
      // minute below 1 KB/s (git's own variables win), over ssh when the connection cannot be made
      // in 30 s or stops answering for a minute.
      GIT_HTTP_LOW_SPEED_LIMIT: process.env.GIT_HTTP_LOW_SPEED_LIMIT ?? "1000",
      GIT_HTTP_LOW_SPEED_TIME: process.env.GIT_HTTP_LOW_SPEED_TIME ?? "60",
      GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? "ssh -o BatchMode=yes -o ConnectTimeout=30 -o ServerAliveInterval=15 -o ServerAliveCountMax=4",
    };
    execFile("git", args, { cwd, env, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout.trim());
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      // Its "fatal:" and "error:" lines say what went wrong; the advice after them is generic.
      const lines = stderr.trim().split("\n").map((line) => line.trim()).filter(Boolean);
      const fatal = lines.filter((line) => /^(fatal|error):/.test(line));
      const said = (fatal.length ? fatal : lines.slice(-2)).join("; ");
      reject(new PluginError(missing ? `${doing} needs git, which was not found on the PATH` : `${doing} failed: ${said || error.message}`));
    });
  });
}

/** Clones `url` into `dest` (which must not exist), at `ref` (a branch or tag) when given, then at
 * the commit `sha` when given; resolves to the commit checked out. */
export async function shallowClone(url: string, dest: string, options: { ref?: string; sha?: string } = {}): Promise<string> {
  const doing = `git clone of ${url}`;
  plainRef(options.ref);
  if (options.sha !== undefined && !/^[0-9a-f]{7,64}$/i.test(options.sha)) throw new PluginError(`commit ${JSON.stringify(options.sha)} is not a commit (7 to 64 hex digits)`);
  await git(["clone", "--quiet", "--depth", "1", ...(options.ref ? ["--branch", options.ref] : []), "--", url, dest], doing);
  if (options.sha) {
    await git(["fetch", "--quiet", "--depth", "1", "origin", options.sha], `git fetch of commit ${options.sha} from ${url}`, dest);
    await git(["checkout", "--quiet", "--detach", options.sha], `git checkout of commit ${options.sha} from ${url}`, dest);
  }
  return git(["rev-parse", "HEAD"], doing, dest);
}

/** Brings the clone at `dir` to the newest commit of its branch (or `ref`): fetched shallow and
 * reset to, as the clone is ours alone and its history may have been rewritten. */
export async function refreshClone(dir: string, what: string, ref?: string): Promise<string> {
  plainRef(ref);
  await git(["fetch", "--quiet", "--depth", "1", "origin", ref ?? "HEAD"], `git fetch of ${what}`, dir);
  await git(["reset", "--quiet", "--hard", "FETCH_HEAD"], `git reset of ${what}`, dir);
  return git(["rev-parse", "HEAD"], `git fetch of ${what}`, dir);
}

/** Refuses a ref git would read as an option (`--upload-pack=<command>`) or that cannot be one. */
function plainRef(ref: string | undefined): void {
  if (ref !== undefined && !/^(?!-)[^\s\0]+$/.test(ref)) throw new PluginError(`ref ${JSON.stringify(ref)} is not a branch or tag name`);
}
