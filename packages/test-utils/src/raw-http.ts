// Bytes sent to an HTTP server as they are, for requests no HTTP client would make.
import { connect } from "node:net";

/** Sends `request` to the server at `url` (http://host:port) and resolves with everything it
 * answers, once it closes the connection. */
export function rawHttp(url: string, request: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname.replace(/^\[(.*)\]$/, "$1"));
    let answer = "";
    socket.setEncoding("utf8").on("data", (text: string) => (answer += text));
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.write(request);
  });
}
