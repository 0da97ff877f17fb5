// What this client tells a server it can do, and its answers to the requests a server sends: the
// configuration it asks for (from the server's `settings`), and empty answers to the rest, so that
// no server waits on a client that has no UI.
import { pathToFileURL } from "node:url";
import path from "node:path";
import { isJsonObject } from "../config/json-text.ts";
import { METHOD_NOT_FOUND, RpcError } from "./rpc.ts";

export const clientCapabilities = {
  general: { positionEncodings: ["utf-16"] },
  window: { workDoneProgress: true },
  workspace: { workspaceFolders: true, configuration: true, didChangeConfiguration: { dynamicRegistration: false }, symbol: { dynamicRegistration: false } },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true, willSave: false, willSaveWaitUntil: false },
    definition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    hover: { contentFormat: ["markdown", "plaintext"] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    callHierarchy: { dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: false, versionSupport: true },
  },
} as const;

/** The answer to a request from the server. */
export function serverRequest(method: string, params: unknown, place: { root: string; settings: unknown }): unknown {
  switch (method) {
    case "workspace/configuration": {
      const items = isJsonObject(params) && Array.isArray(params.items) ? params.items : [];
      return items.map((item: unknown) => section(place.settings, isJsonObject(item) && typeof item.section === "string" ? item.section : undefined));
    }
    case "workspace/workspaceFolders":
      return [{ uri: pathToFileURL(place.root).href, name: path.basename(place.root) }];
    case "window/workDoneProgress/create":
    case "client/registerCapability":
    case "client/unregisterCapability":
    case "window/showMessageRequest":
      return null;
    case "window/showDocument":
      return { success: false };
    case "workspace/applyEdit":
      return { applied: false, failureReason: "this client does not apply edits" };
    default:
      throw new RpcError(METHOD_NOT_FOUND, `method not supported: ${method}`);
  }
}

/** The part of `settings` at the dotted `name` ("typescript.format"), all of it without a name,
 * null where there is none. */
function section(settings: unknown, name: string | undefined): unknown {
  if (settings === undefined) return null;
  if (!name) return settings;
  let at: unknown = settings;
  for (const key of name.split(".")) {
    if (!isJsonObject(at) || !(key in at)) return null;
    at = at[key];
  }
  return at;
}
