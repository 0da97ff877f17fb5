// A runner started by a server on the same machine listens on a Unix socket rather than a loopback
// port: a message costs both ends less in the kernel than TCP does, and only the user who owns the
// socket (mode 0600) can connect to it. Its address is written as a URL, `http+unix://` and the
// socket's path percent-encoded, so it goes wherever a runner's URL goes (the catalog, logs).
import { lstatSync, unlinkSync } from "node:fs";
import { join } from "node:path";

const SCHEME = "http+unix:";

/** The longest socket path every platform takes: sun_path holds 108 bytes on Linux and 104 on macOS,
 * with the terminating NUL. */
const MAX_PATH_BYTES = 103;

/** The socket a runner with `pid` listens on in `dir`, or undefined when that path is too long for
 * a socket address, or on Windows (the runner listens on a loopback port instead). Named by pid: no
 * live runner has the same, and a file left by a dead one may be removed. */
export function runnerSocketPath(dir: string, pid: number): string | undefined {
  // Windows names its pipes in a namespace of their own, not in a directory.
  if (process.platform === "win32") return undefined;
  const path = join(dir, `runner-${pid}.sock`);
  return Buffer.byteLength(path) <= MAX_PATH_BYTES ? path : undefined;
}

/** The pid a file name made by runnerSocketPath holds, or undefined for any other name. */
export function socketPid(name: string): number | undefined {
  const match = /^runner-(\d+)\.sock$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Removes the socket file at `path` if there is one. Anything else at that path is left alone. */
export function removeSocketFile(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // Nothing there, or gone already.
  }
}

export function unixSocketUrl(path: string): string {
  return `http+unix://${encodeURIComponent(path)}`;
}

/** The socket path of an `http+unix://` URL, or undefined for any other URL. */
export function socketPathOf(url: URL): string | undefined {
  return url.protocol === SCHEME ? decodeURIComponent(url.host) : undefined;
}
