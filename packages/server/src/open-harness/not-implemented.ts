// The capabilities of the Open Harness spec this server does not implement, by method and path (under
// /v1): a request for one is answered 501 naming it, so a client can tell "not here" from "no such
// route". Specific paths come before the general ones they would also match. Every operation of the
// spec is served now (some answer 501 for parts of their input, as their limitations say): the table
// is empty until one is not.
const ROUTES: [method: string, path: string, capability: string][] = [];

const MATCHERS = ROUTES.map(([method, path, capability]) => {
  const pattern = path.replace(/\{path\}/g, ".+").replace(/\{[a-zA-Z]+\}/g, "[^/]+");
  return { method, pattern: new RegExp(`^${pattern}$`), capability };
});

/** The spec's capability at `method` `path` (the path under /v1) that is not implemented here. */
export function unimplementedCapability(method: string, path: string): string | undefined {
  const m = method === "HEAD" ? "GET" : method;
  return MATCHERS.find((route) => route.method === m && route.pattern.test(path))?.capability;
}

/** Every capability id of the table, for the manifest's account of what is missing. */
export function unimplementedCapabilities(): string[] {
  return ROUTES.map(([, , capability]) => capability);
}
