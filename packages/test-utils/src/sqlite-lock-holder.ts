// Another process holding a SQLite file's lock, as a backup tool or the sqlite3 shell inside a
// transaction would: for the tests of a server whose session database is locked.
import { spawn, type ChildProcess } from "node:child_process";

/** A process that holds `BEGIN EXCLUSIVE` on `file` until released (or killed). */
export async function holdLock(file: string): Promise<{ child: ChildProcess; release(): Promise<void> }> {
  const script = `
    const { DatabaseSync } = require("node:sqlite");
    const db = new DatabaseSync(${JSON.stringify(file)});
    db.exec("PRAGMA busy_timeout = 10000; BEGIN EXCLUSIVE");
    process.stdout.write("locked\\n");
    process.stdin.resume();
    process.stdin.on("end", () => { db.exec("ROLLBACK"); db.close(); });`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (s: string) => s.includes("locked") && resolve());
    void exited.then(() => reject(new Error("the lock holder exited before taking the lock")));
  });
  return {
    child,
    async release() {
      child.stdin!.end();
      await exited;
    },
  };
}
