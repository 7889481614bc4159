// What of a source file the warm cache compares (warm-cache.ts): its shape and its units.
//
// A *unit* is the block body of a function whose type does not depend on that body: a
// constructor, a set accessor, or a function or method with a declared return type (the
// outermost such body; functions inside it belong to it). The checker never reads such a body
// to type anything outside it, so a change inside it matters only to the walks that read it.
// The *shape* is everything else: the file's text with each unit replaced by a placeholder
// (declarations, signatures, decorators, imports, initializers, and the bodies of functions
// whose return type is inferred). Comments between top-level statements are in neither:
// nothing of txscan reads them. Two digests of the shape are kept: without positions (the
// project-wide facts: a unit that grows by a line moves what follows, it changes no type) and
// with them (a scan reused whole must also have every position it reports unchanged).
import * as crypto from "crypto";
import * as ts from "typescript";

export interface FileShape {
  /** digest of the shape without positions */
  shape: string;
  /** digest of the shape with each top-level statement's position */
  placed: string;
  /** unit key (`line:column` of its body's first brace) -> digest of the body's text */
  units: Record<string, string>;
}

export function digest(text: string | Buffer): string {
  return crypto.createHash("sha1").update(text).digest("hex").slice(0, 24);
}

/** A unit's body: the block of a function whose type never depends on it. */
export function unitBody(n: ts.Node): ts.Block | undefined {
  if (!ts.isFunctionLike(n)) return undefined;
  const body = (n as ts.FunctionLikeDeclaration).body;
  if (!body || !ts.isBlock(body)) return undefined;
  const typed = ts.isConstructorDeclaration(n) || ts.isSetAccessorDeclaration(n) || (n as ts.SignatureDeclarationBase).type !== undefined;
  return typed ? body : undefined;
}

/** `line:column` (1-based) of a unit's body. */
export function unitKey(sf: ts.SourceFile, body: ts.Block): string {
  const at = sf.getLineAndCharacterOfPosition(body.getStart(sf));
  return `${at.line + 1}:${at.character + 1}`;
}

/** The shape and units of one parsed file. */
export function fileShape(sf: ts.SourceFile): FileShape {
  const text = sf.text;
  const units: Record<string, string> = {};
  const pieces: string[] = [];
  const placed: string[] = [];
  // What the program reads outside statements: reference directives and pragmas.
  const directives = JSON.stringify([
    sf.referencedFiles.map((r) => r.fileName), sf.typeReferenceDirectives.map((r) => r.fileName),
    sf.libReferenceDirectives.map((r) => r.fileName), sf.hasNoDefaultLib, pragmas(sf),
  ]);
  pieces.push(directives);
  placed.push(directives);
  for (const statement of sf.statements) {
    const start = statement.getStart(sf);
    let cursor = start;
    let out = "";
    const visit = (n: ts.Node): void => {
      const body = unitBody(n);
      if (body) {
        const bodyStart = body.getStart(sf);
        out += text.slice(cursor, bodyStart) + "{\u2026}";
        cursor = body.end;
        units[unitKey(sf, body)] = digest(text.slice(bodyStart, body.end));
        // the rest of the function (nothing after its body) is already in `out`
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(statement);
    out += text.slice(cursor, statement.end);
    pieces.push(out);
    const at = sf.getLineAndCharacterOfPosition(start);
    placed.push(`${at.line}:${at.character}`, out);
  }
  // Unit positions are in `placed` through the text before each of them.
  return { shape: digest(pieces.join("\u0000")), placed: digest(placed.join("\u0000")), units };
}

/** The file's pragmas (`// @ts-nocheck`, `@jsx`, ...) with their arguments. */
function pragmas(sf: ts.SourceFile): string {
  const found = (sf as unknown as { pragmas?: Map<string, unknown> }).pragmas;
  return found ? JSON.stringify([...found.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => [k, JSON.stringify(v, (key, x) => (key === "range" ? undefined : x))])) : "";
}

/** The unit holding a node (the outermost unit body around it), or undefined when the node is
 *  part of its file's shape. */
export function enclosingUnit(n: ts.Node): ts.Block | undefined {
  let found: ts.Block | undefined;
  for (let cur: ts.Node | undefined = n; cur; cur = cur.parent) {
    const body = unitBody(cur);
    if (body && (body === n || isWithin(n, body))) found = body;
  }
  return found;
}

function isWithin(n: ts.Node, body: ts.Node): boolean {
  return n.pos >= body.pos && n.end <= body.end;
}
