// The runner process entry, in plain JavaScript on purpose: the compile cache must be on before the
// first TypeScript file loads, so that later starts reuse the type-stripped code instead of loading
// the TypeScript stripper itself. The runner then runs from its startup bundle when that is fresh,
// else from its sources (packages/startup).
import { enableCompileCache } from "node:module";

enableCompileCache?.();
const { loadEntry, RUNNER_BUNDLE } = await import("@harness/startup");
await loadEntry(RUNNER_BUNDLE);
