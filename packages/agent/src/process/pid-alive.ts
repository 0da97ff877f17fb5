import { readFileSync } from "node:fs";

/** Whether process `pid` runs (one of another user's, which may not be signalled, counts). A
 * zombie, which has ended but whose parent has not reaped it, does not: where the machine's init
 * does not reap (a container whose first process is a plain program), a process that was adopted
 * by it stays a zombie for good. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return procStatFields(pid)?.[0] !== "Z";
}

/** The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and
 * parentheses), the process's state first: field 3 of proc(5) is index 0. Undefined when /proc
 * cannot tell (no such process, or not Linux). */
export function procStatFields(pid: number | string): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}
