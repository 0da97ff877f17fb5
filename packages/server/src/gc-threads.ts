// Garbage collection on each process's main thread, for the server and its runner processes.
//
// Each Node process sizes V8's pool of helper threads for the whole machine, and by default a
// collection shares its work with them: a scavenge waits for its helpers to finish, and marking
// and sweeping run beside the main thread. The server and its runners are several busy processes
// on the same cores, so when many runs start at once the helpers of one process compete with the
// main threads of the others, and a pause lasts until a descheduled helper gets a core back
// (scavenges of 5 to 24 ms, once 90, were seen in runners on two cores). Collecting on the main
// thread costs less CPU in all and keeps each pause to the process's own work (see BENCHMARKS.md).
//
// V8 takes the flag only when the process starts (turned on later, its parts crash V8's checks),
// so it is given where the processes are started: here for runners, in `bin/harness` for
// `harness serve`.

/** Node's flag for it. */
export const MAIN_THREAD_GC_FLAG = "--single-threaded-gc";
