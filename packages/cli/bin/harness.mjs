// The `harness` process entry, in plain JavaScript on purpose: the compile cache must be on before
// the first TypeScript file loads, so that later starts reuse the type-stripped code instead of
// loading the TypeScript stripper itself (about 60 ms of every start).
import { enableCompileCache } from "node:module";

enableCompileCache?.();
await import("../src/main.ts");
