// A migration (scope.ts: a class implementing MigrationInterface) is never analysed: it is in
// the program only for the types it declares to the files that import it. Its up()/down()
// bodies are most of it (raw SQL run through a query runner; 160,000 syntax nodes in one
// application's 540 migrations) and the checker needs none of them when the function's type is
// written out. Such bodies are blanked (every character but line breaks becomes a space, so
// positions and lines stay where they were) before the file is parsed for the program.
import * as ts from "typescript";
import { isMigrationSource } from "./scope";

/** Text of a body that could change what the program holds or what a scan reads elsewhere:
 *  a module loaded from inside a body, a library the scan looks for by name. */
const KEEP_BODY = /\bimport\s*\(|\brequire\s*\(|transactional/i;

/**
 * The migration's text with the bodies whose type does not depend on them blanked (functions,
 * methods and arrows with a written return type, constructors, setters), or undefined to keep
 * the text as it is: not a migration, a syntax error (reported on the original text), nothing
 * to blank, or a blanked text that would no longer read as a migration.
 */
export function blankedMigration(fileName: string, text: string, languageVersion: ts.ScriptTarget | ts.CreateSourceFileOptions): string | undefined {
  if (!isMigrationSource(text)) return undefined;
  const sf = ts.createSourceFile(fileName, text, languageVersion);
  if ((sf as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics.length > 0) return undefined;
  const spans: [number, number][] = [];
  const visit = (n: ts.Node): void => {
    const fn = n as ts.FunctionLikeDeclaration;
    if (ts.isFunctionLike(n) && fn.body && ts.isBlock(fn.body) && (fn.type || ts.isConstructorDeclaration(n) || ts.isSetAccessor(n))) {
      const start = fn.body.getStart(sf) + 1;
      const end = fn.body.getEnd() - 1;
      if (end > start && !KEEP_BODY.test(text.slice(start, end))) {
        spans.push([start, end]);
        return;
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (spans.length === 0) return undefined;
  const out = blankSpans(text, spans);
  return isMigrationSource(out) ? out : undefined;
}

/** The text with every character of the spans (in order, not overlapping) but line breaks
 *  turned into a space: the syntax tree loses what they held, positions and lines stay. */
export function blankSpans(text: string, spans: ReadonlyArray<[number, number]>): string {
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    out += text.slice(at, start) + text.slice(start, end).replace(/[^\r\n\u2028\u2029]/g, " ");
    at = end;
  }
  return out + text.slice(at);
}
