// The runner process entry, in plain JavaScript on purpose: the compile cache must be on before the
// first TypeScript file loads, so that later starts reuse the type-stripped code instead of loading
// the TypeScript stripper itself.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
await import("../src/runner-main.ts");
