// The model SDK traces every call for OpenTelemetry unless its client is told not to: it builds the
// call span's attributes from the request (its body and headers) before it asks the tracer for a
// span. With no tracer provider or propagator registered in the process, that span records nothing
// and carries no trace context, yet building it costs each run some 0.15 ms of its event loop,
// which a runner starting runs by the dozen pays in one go.
import type { EnvLike } from "../settings.ts";

/** Where @opentelemetry/api (any copy of major version 1, the SDK's bundled one included) keeps
 * what the application registered: `trace` (a tracer provider), `propagation`, `context`. */
const OPEN_TELEMETRY_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/** The SDK client's `openTelemetry` option: undefined (the SDK's own default, tracing on, and what
 * ANTHROPIC_OPEN_TELEMETRY says) when the process has a tracer provider or a propagator
 * registered, or when ANTHROPIC_OPEN_TELEMETRY is set; false (no spans) otherwise. Checked when a
 * client is made: a provider registered later reaches the clients made after it. */
export function sdkTracingOption(env: EnvLike = process.env): false | undefined {
  if (env.ANTHROPIC_OPEN_TELEMETRY !== undefined) return undefined;
  const registered = (globalThis as { [OPEN_TELEMETRY_GLOBAL]?: { trace?: unknown; propagation?: unknown } })[OPEN_TELEMETRY_GLOBAL];
  return registered?.trace || registered?.propagation ? undefined : false;
}
