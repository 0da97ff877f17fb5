// The `harness` process entry, in plain JavaScript on purpose: the compile cache must be on before
// the first TypeScript file loads, so that later starts reuse the type-stripped code instead of
// loading the TypeScript stripper itself (about 60 ms of every start). The CLI then runs from its
// startup bundle when that is fresh, else from its sources (packages/startup).
import { enableCompileCache } from "node:module";

enableCompileCache?.();
const { loadEntry, CLI_BUNDLE } = await import("@harness/startup");
await loadEntry(CLI_BUNDLE);
