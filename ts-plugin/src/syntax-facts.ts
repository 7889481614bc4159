// Syntax facts for txscan's TypeScript rewrites (analyzer/rewrite/typescript_syntax.py): a file's
// parse errors and, for a line, the calls starting on it, the functions enclosing it and the
// statements of the innermost block holding it. Offsets are UTF-16 code units (the caller
// converts). Nothing is type-checked or executed. Asked of rewrite-check.js, or of a scan's
// process serving re-analyses (serve-edits.ts).
import * as ts from "typescript";

export interface Request { path: string; text: string; line?: number }

type Span = { start: number; end: number; text: string };

function span(node: ts.Node, sf: ts.SourceFile): Span {
  return { start: node.getStart(sf), end: node.getEnd(), text: node.getText(sf) };
}

function lineOf(sf: ts.SourceFile, pos: number): number {
  return sf.getLineAndCharacterOfPosition(pos).line + 1;
}

function identifiers(node: ts.Node): string[] {
  const out = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) out.add(n.text);
    ts.forEachChild(n, visit);
  };
  visit(node);
  return [...out].sort();
}

function callFacts(call: ts.CallExpression, sf: ts.SourceFile) {
  const callee = call.expression;
  const receiver = ts.isPropertyAccessExpression(callee) ? callee.expression : undefined;
  return {
    ...span(call, sf),
    method: ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(sf),
    receiver: receiver ? { ...span(receiver, sf), shape: receiverShape(receiver, sf) } : null,
    args: call.arguments.map((a) => span(a, sf)),
    awaited: ts.isAwaitExpression(call.parent),
  };
}

// What the receiver of `receiver.method(...)` is: `this.products`, `getRepository(X)`, `X` ...
function receiverShape(node: ts.Expression, sf: ts.SourceFile) {
  if (ts.isPropertyAccessExpression(node) && node.expression.kind === ts.SyntaxKind.ThisKeyword)
    return { kind: "this-property", name: node.name.text, type: thisPropertyType(node, sf) };
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(sf);
    return { kind: "call", name, args: node.arguments.map((a) => a.getText(sf)) };
  }
  if (ts.isIdentifier(node)) return { kind: "identifier", name: node.text };
  return { kind: "other", name: node.getText(sf) };
}

// The declared type of `this.<name>` in the enclosing class (property or constructor parameter).
function thisPropertyType(node: ts.PropertyAccessExpression, sf: ts.SourceFile): string | null {
  let cls: ts.Node | undefined = node;
  while (cls && !ts.isClassLike(cls)) cls = cls.parent;
  if (!cls) return null;
  for (const member of (cls as ts.ClassLikeDeclaration).members) {
    if (ts.isPropertyDeclaration(member) && member.name.getText(sf) === node.name.text && member.type)
      return member.type.getText(sf);
    if (ts.isConstructorDeclaration(member))
      for (const p of member.parameters)
        if (p.name.getText(sf) === node.name.text && p.type) return p.type.getText(sf);
  }
  return null;
}

function statementFacts(statement: ts.Statement, sf: ts.SourceFile) {
  const base = { ...span(statement, sf), line: lineOf(sf, statement.getStart(sf)), identifiers: identifiers(statement) };
  const awaitedCall = (e: ts.Expression | undefined) =>
    e && ts.isAwaitExpression(e) && ts.isCallExpression(e.expression) ? callFacts(e.expression, sf) : null;
  if (ts.isVariableStatement(statement) && statement.declarationList.declarations.length === 1) {
    const decl = statement.declarationList.declarations[0];
    if (ts.isIdentifier(decl.name)) return { ...base, kind: "declaration", name: decl.name.text, call: awaitedCall(decl.initializer) };
  }
  if (ts.isExpressionStatement(statement)) {
    const e = statement.expression;
    if (ts.isBinaryExpression(e) && ts.isPropertyAccessExpression(e.left) && ts.isIdentifier(e.left.expression)) {
      const op = { [ts.SyntaxKind.EqualsToken]: "=", [ts.SyntaxKind.PlusEqualsToken]: "+=",
        [ts.SyntaxKind.MinusEqualsToken]: "-=" }[e.operatorToken.kind as number];
      if (op) {
        const right = e.right;
        const sum = ts.isBinaryExpression(right) && (right.operatorToken.kind === ts.SyntaxKind.PlusToken
          || right.operatorToken.kind === ts.SyntaxKind.MinusToken) ? {
            left: span(right.left, sf), operator: right.operatorToken.getText(sf), right: span(right.right, sf),
            rightIdentifiers: identifiers(right.right) } : null;
        return { ...base, kind: "assignment", object: e.left.expression.text, attribute: e.left.name.text, op,
          value: span(right, sf), valueIdentifiers: identifiers(right), sum };
      }
    }
    const call = awaitedCall(e);
    if (call) return { ...base, kind: "call", call };
  }
  return { ...base, kind: "other" };
}

export function facts(req: Request) {
  const sf = ts.createSourceFile(req.path, req.text, ts.ScriptTarget.Latest, true,
    req.path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const diagnostics = (sf as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics ?? [];
  const errors = diagnostics.map((d) => `${req.path}:${lineOf(sf, d.start ?? 0)}: ` +
    ts.flattenDiagnosticMessageText(d.messageText, " "));
  if (req.line === undefined) return { path: req.path, errors };
  const line = req.line;
  const calls: ReturnType<typeof callFacts>[] = [];
  const functions: object[] = [];
  let block: ts.Block | ts.SourceFile = sf;
  const visit = (n: ts.Node): void => {
    const first = lineOf(sf, n.getStart(sf)), last = lineOf(sf, n.getEnd());
    if (line < first || line > last) return;
    if (ts.isCallExpression(n) && first === line) calls.push(callFacts(n, sf));
    if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n))) {
      const parent = n.parent;
      functions.unshift({
        start: n.getStart(sf), end: n.getEnd(), line: first,
        params: n.parameters.map((p) => p.name.getText(sf)),
        argumentOf: ts.isCallExpression(parent) ? { line: lineOf(sf, parent.getStart(sf)), ...callFacts(parent, sf) } : null,
      });
    }
    if (ts.isBlock(n) && n.statements.some((s) => lineOf(sf, s.getStart(sf)) <= line && line <= lineOf(sf, s.getEnd())))
      block = n;
    ts.forEachChild(n, visit);
  };
  visit(sf);
  const statements = (block as ts.Block | ts.SourceFile).statements.map((s) => statementFacts(s, sf));
  const topLevelNames = sf.statements.flatMap((s) => {
    if (ts.isImportDeclaration(s) && s.importClause) {
      const names: string[] = s.importClause.name ? [s.importClause.name.text] : [];
      const bindings = s.importClause.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) names.push(...bindings.elements.map((e) => e.name.text));
      return names;
    }
    if ((ts.isClassDeclaration(s) || ts.isFunctionDeclaration(s)) && s.name) return [s.name.text];
    return [];
  });
  return { path: req.path, errors, calls, functions, statements, topLevelNames };
}
