// What a run costs the server as a conversation grows: what of it still scales with the whole
// conversation (the transcript's handling between session, runner and store; the session's state in
// its snapshots). One session is grown to a few megabytes of conversation (each prompt a page of
// text); the CPU its runs then cost the server (all threads) and the time from submit to idle stand
// beside the same runs in a fresh session.
import { perCall, StampCounter } from "./lib.ts";

/** A prompt of `bytes` bytes: prose-like ASCII with a few non-Latin-1 characters, as real text has. */
function page(bytes: number, n: number): string {
  const line = `Run ${n}: the build failed in step three — see the log below ✓ and fix the failing test.\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

/** Server CPU and wall time per run of `client`, each prompt a page numbered on from `from`. */
function perRun(client: StampCounter, pid: number, runs: number, bytes: number, from: number): Promise<{ cpuMs: number; wallMs: number }> {
  let n = from;
  return perCall([pid], () => client.run(page(bytes, n++)), runs);
}

export async function measureLongSession(url: string, serverPid: number, options: { growRuns: number; pageBytes: number; runs: number }) {
  const { growRuns, pageBytes, runs } = options;
  const tag = Date.now();
  const fresh = await StampCounter.open(url, "bench", `long-fresh-${tag}`);
  await fresh.run("hello");
  const short = await perRun(fresh, serverPid, runs, pageBytes, 0);
  fresh.close();
  const long = await StampCounter.open(url, "bench", `long-${tag}`);
  for (let i = 0; i < growRuns; i++) await long.run(page(pageBytes, i));
  const grown = await perRun(long, serverPid, runs, pageBytes, growRuns);
  long.close();
  return { conversationMiB: ((growRuns + runs) * pageBytes) / 1024 / 1024, short, long: grown };
}
