// Entry of the runner process; see runner-main.ts for its environment and behaviour.
// The compile cache (NODE_COMPILE_CACHE, else a directory under the OS temp dir) keeps the
// compiled agent, model SDK and zod on disk, so a freshly spawned runner is listening sooner.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
await import("./runner-main.ts");
