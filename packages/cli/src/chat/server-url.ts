// The server's HTTP addresses, from the URL a chat is given (http(s), or the WebSocket's ws(s)).

/** `path` on the server at `url`, over http(s) whichever of the four schemes `url` has; throws
 * when `url` is no URL. */
export function serverEndpoint(url: string, path: string): URL {
  const endpoint = new URL(path, url.endsWith("/") ? url : `${url}/`);
  endpoint.protocol = endpoint.protocol === "wss:" || endpoint.protocol === "https:" ? "https:" : "http:";
  return endpoint;
}
