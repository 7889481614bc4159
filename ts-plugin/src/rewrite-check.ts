#!/usr/bin/env node
// Parse checks and syntax facts for txscan's TypeScript rewrites (analyzer/rewrite):
// `node dist/rewrite-check.js` reads {"files": [{"path", "text", "line"?}]} on stdin and writes,
// per file, the facts of src/syntax-facts.ts. With `--lines`, each input line is one such request
// and each output line its answer.
import "./with-code-cache"; // (first: before the compiler is loaded)
import { facts, Request } from "./syntax-facts";

/** `--lines`: one request per input line, one answer per output line, until the input ends
 *  (one process, the parser loaded once, serves every check of a scan). */
function serveLines(): void {
  let pending = "";
  const answer = (line: string): void => {
    if (!line.trim()) return;
    let input: { files: Request[] };
    try {
      input = JSON.parse(line);
    } catch (e) {
      process.stdout.write(JSON.stringify({ error: `the input is not JSON: ${(e as Error).message}` }) + "\n");
      return;
    }
    process.stdout.write(JSON.stringify({ files: input.files.map(facts) }) + "\n");
  };
  process.stdin.setEncoding("utf-8");
  process.stdin.on("data", (c: string) => {
    pending += c;
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      answer(pending.slice(0, end));
      pending = pending.slice(end + 1);
    }
  });
  process.stdin.on("end", () => answer(pending));
}

function main(): void {
  if (process.argv.includes("--lines")) return serveLines();
  const chunks: Buffer[] = [];
  process.stdin.on("data", (c: Buffer) => chunks.push(c));
  process.stdin.on("end", () => {
    let input: { files: Request[] };
    try {
      input = JSON.parse(Buffer.concat(chunks).toString("utf-8"));
    } catch (e) {
      process.stderr.write(`rewrite-check: the input is not JSON: ${(e as Error).message}\n`);
      process.exit(2);
    }
    process.stdout.write(JSON.stringify({ files: input.files.map(facts) }) + "\n");
  });
}

main();
