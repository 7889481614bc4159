// A rewrite's re-analysis in the process that scanned the application (`--serve FD`, src/cli.ts):
// after the IR, the process reads requests on stdin, each a set of edited files, and answers each
// with the IR of the application with those edits (scan.ts scanEdited). The program of the scan
// is reused for every file an edit did not change, so an answer costs the walks of the edited
// files' transactions rather than a new process and a new program. The rewrites' syntax facts
// (syntax-facts.ts, which rewrite-check.js answers otherwise) are asked here too: the compiler is
// loaded already.
import * as fs from "fs";
import * as path from "path";
import { writeAll } from "./print-ir";
import { KeptProgram } from "./program";
import { scanEdited, ScanSettings } from "./scan";
import { facts, Request as SyntaxRequest } from "./syntax-facts";

/** A re-analysis: the edited files' texts by path relative to the root, and the files whose
 *  explicit transactions are walked. */
interface Reanalysis {
  texts: Record<string, string>;
  walkFiles: string[];
}

/** Syntax facts of files, as rewrite-check.js is asked for them. */
interface SyntaxQuestion {
  files: SyntaxRequest[];
}

/**
 * Requests arrive on stdin, one JSON line each: `{"texts": {path: text}, "walkFiles": [path]}`
 * (answered with IR) or `{"files": [{"path", "text", "line"?}]}` (answered with rewrite-check.js's
 * JSON answer, `{"files": [facts]}`). Each answer goes to the descriptor `fd`: one JSON line,
 * `{"bytes": N}` followed by the N bytes of the answer, or `{"error": message}` for a request that
 * could not be answered. The end of stdin ends the serving. `previous` is the scan's program
 * (undefined: each re-analysis builds its own).
 */
export function serveEdits(root: string, options: ScanSettings, fd: number, previous?: KeptProgram): void {
  const rootDir = path.resolve(root);
  const input = new LineReader(0);
  for (let line = input.next(); line !== undefined; line = input.next()) {
    let answer: Buffer;
    try {
      const request = parseRequest(line);
      let text: string;
      if ("files" in request) text = JSON.stringify({ files: request.files.map(facts) });
      else {
        const texts = new Map<string, string>();
        for (const [rel, edited] of Object.entries(request.texts)) texts.set(insideRoot(rootDir, rel), edited);
        text = scanEdited(root, options, texts, request.walkFiles, previous);
      }
      const bytes = Buffer.from(text, "utf8");
      answer = Buffer.concat([Buffer.from(JSON.stringify({ bytes: bytes.length }) + "\n", "utf8"), bytes]);
    } catch (e) {
      const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      answer = Buffer.from(JSON.stringify({ error: message.split("\n")[0] }) + "\n", "utf8");
    }
    writeAll(fd, answer);
  }
  fs.closeSync(fd);
}

function parseRequest(line: string): Reanalysis | SyntaxQuestion {
  const value: unknown = JSON.parse(line);
  const raw = value as Partial<Reanalysis & SyntaxQuestion> | null;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("a request is a JSON object");
  if (raw.files !== undefined) {
    const files = raw.files;
    if (!Array.isArray(files) || !files.every((f) => typeof f === "object" && f !== null && typeof f.path === "string"
        && typeof f.text === "string" && (f.line === undefined || Number.isInteger(f.line)))) {
      throw new Error("a request's files are {path, text, line?} objects");
    }
    return { files };
  }
  const texts = raw.texts;
  if (typeof texts !== "object" || texts === null || Array.isArray(texts) || !Object.values(texts).every((t) => typeof t === "string")) {
    throw new Error("a request's texts map paths to texts");
  }
  if (!Array.isArray(raw.walkFiles) || !raw.walkFiles.every((f) => typeof f === "string")) throw new Error("a request's walkFiles is a list of paths");
  return { texts, walkFiles: raw.walkFiles };
}

/** The absolute path of `rel`, a path under the root; anything else is refused. */
function insideRoot(rootDir: string, rel: string): string {
  const full = path.resolve(rootDir, rel);
  if (path.isAbsolute(rel) || !full.startsWith(rootDir + path.sep)) throw new Error(`${rel} is not a path under the scanned root`);
  return full;
}

/** Lines of a descriptor, read as they come (blocking; a descriptor that does not block is waited for). */
class LineReader {
  private readonly chunk = Buffer.allocUnsafe(1 << 16);
  /** what was read past the last line returned; no piece but the last holds a newline */
  private pieces: Buffer[] = [];
  private ended = false;

  constructor(private readonly fd: number) {}

  /** The next whole line, without its newline; undefined at the end of the input (an unfinished last line is dropped). */
  next(): string | undefined {
    for (;;) {
      const last = this.pieces[this.pieces.length - 1];
      const end = last === undefined ? -1 : last.indexOf(10);
      if (end >= 0) {
        const line = Buffer.concat([...this.pieces.slice(0, -1), last.subarray(0, end)]).toString("utf8");
        this.pieces = end + 1 < last.length ? [last.subarray(end + 1)] : [];
        return line;
      }
      if (this.ended) return undefined;
      let n: number;
      try {
        n = fs.readSync(this.fd, this.chunk, 0, this.chunk.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      if (n === 0) this.ended = true;
      else this.pieces.push(Buffer.from(this.chunk.subarray(0, n)));
    }
  }
}
