// How V8 collects the garbage of the server and its runner processes: the flags each is started with.
//
// On its main thread (--single-threaded-gc). Each Node process sizes V8's pool of helper threads for
// the whole machine, and by default a collection shares its work with them: a scavenge waits for its
// helpers to finish, and marking and sweeping run beside the main thread. The server and its runners
// are several busy processes on the same cores, so when many runs start at once the helpers of one
// process compete with the main threads of the others, and a pause lasts until a descheduled helper
// gets a core back (scavenges of 5 to 24 ms, once 90, were seen in runners on two cores). Collecting
// on the main thread costs less CPU in all and keeps each pause to the process's own work.
//
// With a young generation of at most 2 MiB a semi-space (--max-semi-space-size=2). Left to itself,
// V8 grows it to 16–32 MiB in a process that streams: at 100 sessions the server then collected it
// every few hundred milliseconds, copying 3–8 MiB of what was still in flight (frames, deltas on
// their way to the store, events between hops) in pauses of 10–28 ms that held every stream. Kept
// small, it is collected several times as often, in pauses of 1–3 ms, for about the same CPU; the
// 100-session p99 fell from about 8–9 ms to about 5 (BENCHMARKS.md).
//
// A runner also starts with room for 64 MiB of old generation before its first full collection
// (--initial-old-space-size=64). V8 starts a process with a limit of about 20 MiB, which a runner
// taking its first dozens of runs at once passes within a second: its first full collection then
// came while those runs streamed, moving 12–16 MiB of what they had left behind in 15–70 ms pauses.
// With the room, the runners of a 100-session pass made none, and ended it with smaller heaps
// (51–57 against 65–71 MiB), the garbage of their start collected by scavenges instead.
//
// V8 takes these only as the process starts (set later, --single-threaded-gc crashes V8's checks),
// so they are given where the processes are started: here for runners, in `bin/harness` for
// `harness serve` (and `startHarnessServer` in test-utils starts it the same way).

/** The server's. */
export const GC_FLAGS: readonly string[] = ["--single-threaded-gc", "--max-semi-space-size=2"];

/** A runner's. */
export const RUNNER_GC_FLAGS: readonly string[] = [...GC_FLAGS, "--initial-old-space-size=64"];
