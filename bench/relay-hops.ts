// The path of a text delta with nothing on it: the same processes and sockets as the running system
// (model → runner process → server process → WebSocket client), each hop only passing text on.
// The floor for added latency that the architecture itself sets on this machine.
//   node relay-hops.ts runner <modelUrl>           POST / {prompt} → the model's text deltas as SSE,
//                                                  on a Unix socket, as the server's runners listen
//   node relay-hops.ts server <runnerUrl>[,<url>…]  WebSocket: submit → delta frames, runners in turn
// Each prints {"url": …} once listening and exits when stdin closes.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { socketPathOf, unixSocketUrl } from "@harness/runner/unix-socket";
import { WebSocketServer } from "ws";

const [mode, target] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true });

/** One SSE event in one syscall: res.write sends a chunk's size line, data and terminator as three
 * socket writes, which only a corked socket joins (the runner's event stream does the same). */
function writeWhole(res: http.ServerResponse, text: string): void {
  res.socket?.cork();
  res.write(text);
  res.socket?.uncork();
}

/** Calls `onData` with each complete SSE event's data line. */
function sseEvents(res: http.IncomingMessage, onData: (data: string) => void, onEnd: () => void): void {
  let buffer = "";
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .find((line) => line.startsWith("data: "));
      buffer = buffer.slice(end + 2);
      if (data) onData(data.slice(6));
    }
  });
  res.on("end", onEnd);
}

/** POSTs `body` to `url`: an http:// URL, or an http+unix:// one (a runner's, unix-socket.ts). */
function post(url: string, body: unknown, onResponse: (res: http.IncomingMessage) => void): void {
  const headers = { "content-type": "application/json", "x-api-key": "bench", "anthropic-version": "2023-06-01" };
  const socketPath = socketPathOf(new URL(url));
  const req = socketPath
    ? http.request({ socketPath, path: "/", method: "POST", agent, headers }, onResponse)
    : http.request(url, { method: "POST", agent, headers }, onResponse);
  req.end(JSON.stringify(body));
}

function runnerHop(modelUrl: string): http.Server {
  return http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const { prompt } = JSON.parse(body) as { prompt: string };
      res.writeHead(200, { "content-type": "text/event-stream" });
      post(`${modelUrl}/v1/messages`, { model: "bench", max_tokens: 1024, stream: true, messages: [{ role: "user", content: prompt }] }, (upstream) =>
        sseEvents(
          upstream,
          (data) => {
            const event = JSON.parse(data) as { type: string; delta?: { type: string; text?: string } };
            if (event.type === "content_block_delta" && event.delta?.type === "text_delta") writeWhole(res, `data: ${JSON.stringify({ text: event.delta.text })}\n\n`);
          },
          () => res.end(),
        ),
      );
    });
  });
}

function serverHop(runnerUrls: string[]): http.Server {
  const server = http.createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  let next = 0;
  wss.on("connection", (ws) => {
    const runner = runnerUrls[next++ % runnerUrls.length];
    let seq = 0;
    const send = (op: unknown) => ws.send(JSON.stringify({ type: "delta", seq: ++seq, operations: [op] }));
    ws.on("message", (raw) => {
      const frame = JSON.parse(String(raw)) as { commands?: { type: string; prompt?: string }[] };
      const prompt = frame.commands?.find((c) => c.type === "submit")?.prompt;
      if (prompt === undefined) return;
      send({ type: "replace", path: ["status"], value: "running" });
      post(runner, { prompt }, (res) =>
        sseEvents(
          res,
          (data) => send({ type: "append-text", path: ["messages", 1, "content"], value: (JSON.parse(data) as { text: string }).text }),
          () => send({ type: "replace", path: ["status"], value: "idle" }),
        ),
      );
    });
  });
  return server;
}

const say = (url: string) => process.stdout.write(`${JSON.stringify({ url })}\n`);
let socketDir: string | undefined;
if (mode === "runner") {
  socketDir = mkdtempSync(join(tmpdir(), "harness-relay-"));
  const path = join(socketDir, "relay.sock");
  runnerHop(target).listen(path, () => say(unixSocketUrl(path)));
} else {
  const server = serverHop(target.split(","));
  server.listen(0, "127.0.0.1", () => say(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}
process.stdin.on("close", () => {
  if (socketDir) rmSync(socketDir, { recursive: true, force: true });
  process.exit(0);
});
process.stdin.resume();
