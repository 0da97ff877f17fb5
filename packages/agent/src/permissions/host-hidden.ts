// What a host keeps from a run's file tools (PermissionContext.hostHidden): a server's data
// directory holds its store and the other sessions' workspaces, its temporary root the other
// sessions' temporary directories. Only the run's own workspace and temporary directory inside them
// stay open. No mode, rule, setting or approval opens the rest: whoever drives one session must
// not reach the files of another (the Bash sandbox hides the same paths from commands).
import path from "node:path";
import { isWithin, realPathOf } from "../files/real-paths.ts";
import { workspaceTmpDir } from "../sandbox/tmp-dir.ts";
import type { PathAccess } from "./path-access.ts";
import { shownPath } from "./paths.ts";
import type { PermissionContext, PermissionDecision } from "./types.ts";
import { deny } from "./verdicts.ts";

/** The denial of the first of `accesses` that reaches what the host hides, or undefined. `searches`:
 * the tool reads below its path (Glob, Grep), so a path above a hidden one reaches into it too. */
export function hostHiddenDenial(accesses: readonly PathAccess[], ctx: PermissionContext, searches: boolean): PermissionDecision | undefined {
  const hidden = (ctx.hostHidden ?? []).flatMap((dir) => both(path.resolve(dir)));
  if (hidden.length === 0) return undefined;
  const open = [ctx.cwd, workspaceTmpDir(ctx.cwd)].flatMap(both);
  const closed = (target: string) => hidden.some((dir) => isWithin(target, dir)) && !open.some((dir) => isWithin(target, dir));
  const why = `it lies in the server's data directory, where this session may use only its own workspace (${ctx.cwd})`;
  for (const access of accesses) {
    const shown = shownPath(access.path, ctx.cwd);
    const doing = access.kind === "read" ? `Reading ${shown}` : `Writing to ${shown}`;
    const real = realPathOf(access.path);
    if (closed(access.path)) return deny(`${doing} is denied: ${why}.`);
    if (closed(real)) return deny(`${doing} is denied: a symbolic link leads it to ${real}, and ${why}.`);
    if (searches && hidden.some((dir) => isWithin(dir, access.path) || isWithin(dir, real))) {
      return deny(`Searching ${shown} is denied: the server's data directory lies inside it, and this session may use only its own workspace there (${ctx.cwd}); search a directory that does not hold it.`);
    }
    // A pattern whose reach is known only as it runs may lead anywhere, the hidden places included.
    if (access.uncertain !== undefined) return deny(`${doing} is denied: ${access.uncertain}, and this session may not reach the server's data directory but for its own workspace.`);
    if (access.kind !== "read" && (ctx.settingsLocked ?? ctx.sandbox !== undefined) && (RUNS_OUTSIDE_SANDBOX.test(access.path) || RUNS_OUTSIDE_SANDBOX.test(real))) {
      return deny(
        `${doing} is denied: under this server, with the sandbox on, a session may not change its own settings or hook scripts, which decide what runs outside the sandbox (a hook runs as the server's user, and a setting could turn the sandbox off). The server's operator sets hooks in the server's own settings.`,
      );
    }
  }
  return undefined;
}

/** A workspace's settings files and hook scripts: what they say runs outside the sandbox. The
 * sandbox keeps commands from them; under a server, the file tools are kept from them too, since
 * whoever approves a session's calls is not the machine's owner. Narrower than decidesCommands
 * (paths.ts), which asks in acceptEdits for what a person's git, editor or shell would run too: in
 * a server's workspace only the harness runs things, and a session may still write its CLAUDE.md. */
const RUNS_OUTSIDE_SANDBOX = /(?:^|\/)\.claude\/(?:settings(?:\.local)?\.json$|hooks(?:\/|$))/;

/** A directory as written and where its links lead. */
function both(dir: string): string[] {
  const real = realPathOf(dir);
  return real === dir ? [dir] : [dir, real];
}
