// The socket files the sandbox runtime makes in the temporary directory for a process's sandboxed
// commands (claude-http-<random>.sock and claude-socks-<random>.sock, where its socat relays
// listen; srt-mux-<pid>-<n>.sock, its proxy's), which it removes when that process exits, but not
// when the process is killed. Whoever finds them can tell the dead ones: one named by a pid that no
// longer runs, or one nobody listens on.
import { lstatSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pidAlive } from "../process/pid-alive.ts";

const RELAY = /^claude-(?:http|socks)-[0-9a-f]+\.sock$/;
const MUX = /^srt-mux-(\d+)-[0-9a-z]+\.sock$/;

/** The paths of the Unix sockets something listens on, or undefined when /proc cannot tell. */
function listeningSockets(): Set<string> | undefined {
  let table: string;
  try {
    table = readFileSync("/proc/net/unix", "utf8");
  } catch {
    return undefined;
  }
  const paths = new Set<string>();
  // Num RefCount Protocol Flags Type St Inode Path: a bound socket has a path, a listening one the
  // flag __SO_ACCEPTCON (0x10000).
  for (const line of table.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 8 && (Number.parseInt(fields[3], 16) & 0x10000) !== 0) paths.add(fields.slice(7).join(" "));
  }
  return paths;
}

/** Removes, from `dir` (default: the temporary directory), the sandbox's socket files that processes
 * killed before they could remove them left: a relay's when nothing listens on it, a proxy's when
 * the process its name gives is gone. Live ones, and anything else, are left alone. */
export function removeDeadSandboxSockets(dir: string = os.tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  let listening: Set<string> | undefined | null = null;
  for (const name of names) {
    const mux = MUX.exec(name);
    if (!mux && !RELAY.test(name)) continue;
    const file = path.join(dir, name);
    if (mux) {
      if (pidAlive(Number(mux[1]))) continue;
    } else {
      // Read once, and only when there is a relay's socket to judge.
      if (listening === null) listening = listeningSockets();
      if (!listening || listening.has(file)) continue;
    }
    try {
      if (lstatSync(file).isSocket()) unlinkSync(file);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}
