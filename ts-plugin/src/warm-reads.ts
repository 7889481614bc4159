// The units (warm-shape.ts) each walk reads, for the warm cache (warm-cache.ts).
//
// The walker notes every function it enters (TransactionWalk.run and invoke). A helper walk
// replayed from the memo (walk-memo.ts) read nothing now, but what it read when recorded is
// read all the same: a recording keeps the notes taken while it was made, and a replay adds
// them again. Notes are kept in order, repeats included, so that a recording's share is the
// slice taken between its start and its end.
import * as ts from "typescript";
import { relPath } from "./program";
import { enclosingUnit, unitKey } from "./warm-shape";

export class ReadLog {
  private notes: ts.Node[] = [];

  /** The walk enters `fn` (a function of the application). */
  note(fn: ts.Node): void {
    this.notes.push(fn);
  }

  /** A new walk starts: what earlier walks read is not its reach (recordings keep their own). */
  reset(): void {
    this.notes = [];
  }

  mark(): number {
    return this.notes.length;
  }

  since(mark: number): ts.Node[] {
    return this.notes.slice(mark);
  }

  add(notes: readonly ts.Node[]): void {
    for (const n of notes) this.notes.push(n);
  }

  /** The units read since `mark`, as sorted keys `file#n` (the file relative to the root, n the unit's number in it). */
  unitsSince(rootDir: string, mark: number): string[] {
    const keys = new Set<string>();
    for (const n of this.notes.slice(mark)) {
      const start = ts.isFunctionLike(n) ? (n as ts.FunctionLikeDeclaration).body ?? n : n;
      const body = enclosingUnit(start);
      if (!body) continue; // in its file's shape: compared with the project-wide facts
      const sf = body.getSourceFile();
      keys.add(`${relPath(rootDir, sf.fileName)}#${unitKey(sf, body)}`);
    }
    return [...keys].sort();
  }
}
