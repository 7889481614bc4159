// What of a source file the warm cache compares (warm-cache.ts): its shape and its units, and
// where things are in it without counting lines (its anchors).
//
// A *unit* is the block body of a function (the outermost such body; functions inside it
// belong to it). Units are numbered in the order of the file: with the same shape, the same
// number is the same function wherever it moved. A unit's digest is its text: a walk that read
// it is reused only while it is the same.
// The *shape* is everything else: the file's text with each unit replaced by a placeholder
// (declarations, signatures, decorators, imports, initializers). A function whose return type is
// inferred lends its body's type to its callers. When that type is all it lends (a function or
// method seen by name, or through one variable: `lendsOnlyItsSignature` below), the digest of its
// body's tokens is kept beside the shape (`signed`), and the warm cache compares the signature the
// checker infers when they change (warm-types.ts); otherwise its placeholder holds the tokens
// themselves (and whether a line break comes before each). Either way a change of code in it is
// seen, and a comment or blank line added in it is not (nothing of txscan outside the walks that
// read the body reads its text). Comments between top-level statements are in neither; nor is the
// space between the members of a top-level class and between a member's decorators and modifiers
// (*trivia* there: comments, blank lines) beyond whether it breaks the line: nothing reads its text
// but autocommit's prefilter (whose answer for the member is part of the shape instead). Two
// digests of the shape are kept: without positions (the project-wide facts: a unit that grows by a
// line moves what follows, it changes no type) and with them and every character (a scan reused
// whole must also have every position it reports unchanged).
//
// *Anchors* cut a file into spans whose text is the same whenever the shape is: statement
// starts (S) and ends (E), unit bodies' braces (O, C), and the ends of normalised trivia (A, B).
// A position is named by the anchor before it and its distance from it (`place`), and a kept
// line is moved to today's by the span holding it (warm-moves.ts).
import * as crypto from "crypto";
import * as ts from "typescript";
import { textMayIssueStatements } from "./autocommit";

export interface FileShape {
  /** digest of the shape without positions */
  shape: string;
  /** digest of the shape with each top-level statement's position and every character */
  placed: string;
  /** digest of each unit's body text, in the order of the file */
  units: string[];
  /** the units whose return type is inferred and whose signature is compared instead of their
   *  code (warm-types.ts): unit number -> digest of the body's tokens */
  signed?: Record<string, string>;
  /** anchors, flat: [line, column] (0-based) of each */
  anchors: number[];
  /** one letter per anchor: S, E (statement), O, C (unit body), A, B (normalised trivia) */
  kinds: string;
}

export function digest(text: string | Buffer): string {
  return crypto.createHash("sha1").update(text).digest("hex").slice(0, 24);
}

/** A unit's body: the block of a function. */
export function unitBody(n: ts.Node): ts.Block | undefined {
  if (!ts.isFunctionLike(n)) return undefined;
  const body = (n as ts.FunctionLikeDeclaration).body;
  return body && ts.isBlock(body) ? body : undefined;
}

/** Whether a function's type never depends on its body (a declared return type). */
function typed(n: ts.Node): boolean {
  return ts.isConstructorDeclaration(n) || ts.isSetAccessorDeclaration(n) || (n as ts.SignatureDeclarationBase).type !== undefined;
}

/** The tokens of a body whose return type is inferred, with whether a line break comes before
 *  each (all its type can depend on: comments and spacing are left out). The scanner is led as
 *  the parser leads it through templates (`}` closing a substitution) and slashes (a division
 *  after an operand, else a regular expression); undefined where that is not clear (a slash
 *  after `}`, JSX, a character it cannot read): then the body's text is the shape. */
function tokens(sf: ts.SourceFile, body: ts.Block): string | undefined {
  if (sf.languageVariant === ts.LanguageVariant.JSX) return undefined;
  const start = body.getStart(sf);
  const scanner = ts.createScanner(sf.languageVersion, true, ts.LanguageVariant.Standard, sf.text, undefined, start, body.end - start);
  let out = "";
  // open braces since each enclosing template substitution started
  const substitutions: number[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let t = scanner.scan(); t !== ts.SyntaxKind.EndOfFileToken; t = scanner.scan()) {
    if (t === ts.SyntaxKind.OpenBraceToken && substitutions.length) substitutions[substitutions.length - 1]++;
    else if (t === ts.SyntaxKind.CloseBraceToken && substitutions.length) {
      if (substitutions[substitutions.length - 1] === 0) {
        t = scanner.reScanTemplateToken(false);
        if (t === ts.SyntaxKind.TemplateTail) substitutions.pop();
      } else substitutions[substitutions.length - 1]--;
    } else if (t === ts.SyntaxKind.TemplateHead) substitutions.push(0);
    else if (t === ts.SyntaxKind.SlashToken || t === ts.SyntaxKind.SlashEqualsToken) {
      if (previous === ts.SyntaxKind.CloseBraceToken) return undefined;
      if (!OPERAND_ENDS.has(previous)) t = scanner.reScanSlashToken();
    } else if (t === ts.SyntaxKind.Unknown || t === ts.SyntaxKind.BacktickToken) return undefined;
    out += (scanner.hasPrecedingLineBreak() ? "\u0002" : "\u0001") + scanner.getTokenText();
    previous = t;
  }
  return substitutions.length ? undefined : out;
}

/** Tokens after which a slash divides. */
const OPERAND_ENDS = new Set([
  ts.SyntaxKind.Identifier, ts.SyntaxKind.PrivateIdentifier, ts.SyntaxKind.NumericLiteral, ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral, ts.SyntaxKind.CloseParenToken, ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.ThisKeyword, ts.SyntaxKind.SuperKeyword, ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword, ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken,
]);

/** One parsed file cut at its anchors (positions), with its units in order, and the digests
 *  of its shape. It lives as long as its file: the shape's text (on a large application, tens
 *  of megabytes of slices and concatenations of the sources) is digested as it is made, never kept. */
export interface Layout {
  positions: number[];
  kinds: string;
  bodies: ts.Block[];
  /** units whose return type is inferred and which lend only their signature: number -> digest of their tokens */
  signed: Map<number, string>;
  ordinal: Map<ts.Block, number>;
  shape: string;
  placed: string;
  /** [line, column] (0-based) of each position, flat */
  anchors: number[];
}

const layouts = new WeakMap<ts.SourceFile, Layout>();

export function layoutOf(sf: ts.SourceFile): Layout {
  let known = layouts.get(sf);
  if (!known) layouts.set(sf, (known = buildLayout(sf)));
  return known;
}

function buildLayout(sf: ts.SourceFile): Layout {
  const text = sf.text;
  const lines = lineStarts(sf);
  const positions: number[] = [];
  let kinds = "";
  const bodies: ts.Block[] = [];
  const signed = new Map<number, string>();
  const anchor = (pos: number, kind: string) => {
    positions.push(pos);
    kinds += kind;
  };
  // What the program reads outside statements: reference directives and pragmas.
  const directives = JSON.stringify([
    sf.referencedFiles.map((r) => r.fileName), sf.typeReferenceDirectives.map((r) => r.fileName),
    sf.libReferenceDirectives.map((r) => r.fileName), sf.hasNoDefaultLib, pragmas(sf),
  ]);
  const shapeText = [directives];
  const placedText = [directives];
  for (const statement of sf.statements) {
    const start = statement.getStart(sf);
    anchor(start, "S");
    let cursor = start;
    let out = "";
    const topClass = ts.isClassDeclaration(statement) ? statement : undefined;
    // trivia before `n` (a member of a top-level class, or one of a member's decorators or
    // modifiers, or its name): only whether it breaks the line
    const trivia = (n: ts.Node): void => {
      const at = n.getStart(sf);
      if (at <= n.pos || n.pos < cursor) return;
      const between = text.slice(n.pos, at);
      out += text.slice(cursor, n.pos) + (/[\n\r\u2028\u2029]/.test(between) ? "\n" : " ");
      anchor(n.pos, "A");
      anchor(at, "B");
      cursor = at;
    };
    const placeUnit = (fn: ts.Node, body: ts.Block): void => {
      const bodyStart = body.getStart(sf);
      let inferred = "";
      if (!typed(fn)) {
        // a body whose return type is inferred: its tokens are the shape (a comment in it is
        // not), unless all it lends is its signature: then the signature is compared instead,
        // once the program is built (warm-cache.ts), and the tokens are kept to know when
        const code = tokens(sf, body);
        if (code !== undefined && lendsOnlyItsSignature(sf, fn, body)) {
          signed.set(bodies.length, digest(code));
          inferred = "\u21d0";
        } else inferred = code ?? text.slice(bodyStart, body.end);
      }
      out += text.slice(cursor, bodyStart) + "{\u2026" + inferred + "}";
      cursor = body.end;
      anchor(bodyStart, "O");
      anchor(body.end, "C");
      bodies.push(body);
    };
    const member = (n: ts.ClassElement): void => {
      trivia(n);
      const body = unitBody(n);
      ts.forEachChild(n, (child) => {
        if (ts.isModifier(child) || ts.isDecorator(child) || child === n.name) trivia(child);
        if (child === body) placeUnit(n, body);
        else visit(child);
      });
      // autocommit's prefilter reads the member's text, comments included: its answer on the
      // text outside the body (a unit's own changes are the unit's) is part of the shape
      if (ts.isFunctionLike(n)) {
        const start = n.getStart(sf);
        const outside = body ? text.slice(start, body.getStart(sf)) + "{}" + text.slice(body.end, n.end) : text.slice(start, n.end);
        out += textMayIssueStatements(outside) ? "\u2713" : "\u2717";
      }
    };
    const visit = (n: ts.Node): void => {
      if (topClass && n.parent === topClass && ts.isClassElement(n)) return member(n);
      const body = unitBody(n);
      // the rest of the function (nothing after its body) is in the text before it
      if (body) return placeUnit(n, body);
      ts.forEachChild(n, visit);
    };
    visit(statement);
    out += text.slice(cursor, statement.end);
    anchor(statement.end, "E");
    shapeText.push(out);
    const at = lineStartsApi.computeLineAndCharacterOfPosition(lines, start);
    placedText.push(`${at.line}:${at.character}`, text.slice(start, statement.end));
  }
  const anchors: number[] = [];
  for (const pos of positions) {
    const at = lineStartsApi.computeLineAndCharacterOfPosition(lines, pos);
    anchors.push(at.line, at.character);
  }
  return {
    positions, kinds, bodies, signed, ordinal: new Map(bodies.map((b, i) => [b, i])), shape: digest(shapeText.join("\u0000")), placed: digest(placedText.join("\u0000")),
    anchors,
  };
}

/** The compiler's own line counting (exported by it, not declared in its typings). */
const lineStartsApi = ts as unknown as {
  computeLineStarts(text: string): number[];
  computeLineAndCharacterOfPosition(lineStarts: readonly number[], position: number): ts.LineAndCharacter;
};

/** The file's line starts, as the compiler counts lines. Not kept on the file when it has none
 *  yet: the warm cache shapes every file of the project, most of which no record ever names a
 *  line of (on an application of 1.5 million lines, 12 MB kept to the end of the scan). */
function lineStarts(sf: ts.SourceFile): readonly number[] {
  return (sf as unknown as { lineMap?: readonly number[] }).lineMap ?? lineStartsApi.computeLineStarts(sf.text);
}

/** The shape, units and anchors of one parsed file. */
export function fileShape(sf: ts.SourceFile): FileShape {
  const layout = layoutOf(sf);
  const shape: FileShape = {
    shape: layout.shape, placed: layout.placed,
    units: layout.bodies.map((b) => digest(sf.text.slice(b.getStart(sf), b.end))), anchors: layout.anchors, kinds: layout.kinds,
  };
  if (layout.signed.size) shape.signed = Object.fromEntries(layout.signed);
  return shape;
}

/** The function of a file's unit number n. */
export function unitFunction(sf: ts.SourceFile, n: number): ts.Node | undefined {
  return layoutOf(sf).bodies[n]?.parent;
}

/** Whether a function whose return type is inferred lends its callers nothing but its signature
 *  (warm-types.ts; with the types it lends through, for a member of an object literal held by
 *  one variable, `lentThrough`): a function or class method of a TypeScript file, or a function
 *  held by a variable or a class property, whose body declares no type and no function. Not a
 *  function passed as an argument (its return type takes part in inferring the call's), nor a
 *  member of any other object literal (which may be one of several arguments), nor JavaScript
 *  (a body there may declare a class's members). */
function lendsOnlyItsSignature(sf: ts.SourceFile, fn: ts.Node, body: ts.Block): boolean {
  if (!TYPESCRIPT.test(sf.fileName) || sf.isDeclarationFile) return false;
  const parent = fn.parent;
  const named = ts.isFunctionDeclaration(fn) ||
    ((ts.isMethodDeclaration(fn) || ts.isGetAccessorDeclaration(fn)) && ts.isClassDeclaration(parent)) ||
    ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent)) && parent.initializer === fn) ||
    lentThrough(fn) !== undefined;
  return named && !declaresNames(body);
}

/** The object literal a member of it is in, and the one variable that literal is seen through. */
export interface LentThrough {
  literal: ts.ObjectLiteralExpression;
  variable: ts.VariableDeclaration;
}

/** Where a member of an object literal lends its type when that literal is seen only through one
 *  variable: the literal is the variable's initializer, or the only argument of the call that is
 *  (TypeORM's custom repositories: `const items = source.getRepository(Item).extend({ byId(id)
 *  {...} })`, whose type is the repository's and the literal's). Its callers then see the
 *  function through the variable's type, and the members beside it through the literal's (the
 *  literal's type holds each member's, parameters typed by the context included): both are
 *  compared (warm-types.ts). A literal among several arguments is not: its members' types may
 *  type the other arguments' functions, which neither type shows. */
export function lentThrough(fn: ts.Node): LentThrough | undefined {
  const member = ts.isMethodDeclaration(fn) || ts.isGetAccessorDeclaration(fn) ? fn
    : (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isPropertyAssignment(fn.parent) && fn.parent.initializer === fn ? fn.parent
      : undefined;
  const literal = member?.parent;
  if (!literal || !ts.isObjectLiteralExpression(literal)) return undefined;
  const call = ts.isCallExpression(literal.parent) && literal.parent.arguments.length === 1 && literal.parent.arguments[0] === literal
    ? literal.parent : undefined;
  const variable = (call ?? literal).parent;
  if (!ts.isVariableDeclaration(variable) || variable.initializer !== (call ?? literal) || !ts.isIdentifier(variable.name) ||
    variable.type !== undefined) return undefined;
  return { literal, variable };
}

const TYPESCRIPT = /\.(ts|mts|cts)$/;

/** Whether a body declares a type or a function (whose name the signature's text could print). */
function declaresNames(body: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isClassLike(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n) || ts.isEnumDeclaration(n) ||
      ts.isModuleDeclaration(n) || ts.isFunctionDeclaration(n)) found = true;
    else ts.forEachChild(n, visit);
  };
  ts.forEachChild(body, visit);
  return found;
}

/** A unit's number in its file. */
export function unitKey(sf: ts.SourceFile, body: ts.Block): string {
  return String(layoutOf(sf).ordinal.get(body) ?? -1);
}

/** A position named without lines: the anchor at or before it and the distance from it. */
export function place(sf: ts.SourceFile, pos: number): string {
  const { positions } = layoutOf(sf);
  let lo = 0;
  let hi = positions.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (positions[mid] <= pos) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found < 0 ? `^${pos}` : `${found}+${pos - positions[found]}`;
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
