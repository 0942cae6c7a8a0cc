import { readFileSync } from "node:fs";
import { createServer } from "node:http";

/**
 * The benchmarks' first baseline: a bare Node HTTP server answering, for each
 * path, the same JSON bytes the service answered for it. Started as a child
 * process: `tsx scripts/bench/bare-server.ts <bodies.json> <port>`.
 */
const [bodiesFile = "", port = "0"] = process.argv.slice(2);
const bodies = JSON.parse(readFileSync(bodiesFile, "utf8")) as Record<string, string>;

createServer((request, response) => {
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  const body = bodies[path] ?? bodies["*"] ?? "{}";
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
    response.end(body);
  });
}).listen(Number(port), "127.0.0.1", () => console.log("ready"));
