// What a body whose return type is inferred lends its callers, as the warm cache compares it
// (warm-cache.ts): the function's signature as the checker infers it, printed.
//
// Such a body is a unit like any other, and only the walks that read it need it again when its code
// changes, provided everything it lends outside itself is as before. Outside its body a function is
// seen only through its type: its signature (type parameters, parameters, the inferred return type,
// an inferred type predicate). Only functions whose type is seen by name qualify (warm-shape.ts
// `lendsOnlyItsSignature`), or through one variable (a member of an object literal that variable
// holds, itself or as the only argument of a call, as custom repositories are: the literal's type
// and the variable's are printed after the signature). A function passed as an argument lends its
// return type to the inference of the call too, a JavaScript function may declare a class by
// `this.x =` in its body, and a body declaring types (or functions, which may gain properties)
// could return them printed by a name that stays the same when they change. The text is compared
// only when it names nothing by a name the body could give a new meaning: `typeof x`, `unique
// symbol` and anonymous classes are refused (`undefined`: a change of the unit's code then walks
// everything, as a change of the shape does).
import * as ts from "typescript";
import { LentThrough, lentThrough } from "./warm-shape";

const FORMAT = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType | ts.TypeFormatFlags.WriteTypeArgumentsOfSignature;

/** The function's signature as its callers see it, or undefined when the text cannot tell two
 *  different types apart. */
export function inferredSignature(checker: ts.TypeChecker, fn: ts.SignatureDeclaration): string | undefined {
  const signature = checker.getSignatureFromDeclaration(fn);
  if (!signature) return undefined;
  // the printed signature holds its type parameters, parameters, return type and type predicate
  let text = checker.signatureToString(signature, undefined, FORMAT);
  const lent = lentThrough(fn);
  if (lent) text += lentTypes(checker, lent);
  return AMBIGUOUS.test(text) ? undefined : text;
}

/** Names the body could change the meaning of while the text stays the same. */
const AMBIGUOUS = /\btypeof\b|\(Anonymous|\bunique symbol\b/;

/** The types a member of an object literal seen through a variable (warm-shape.ts lentThrough)
 *  lends besides its signature: the literal's (its members', contextual parameter types
 *  included) and the variable's. Printed once per literal and checker: every member of a custom
 *  repository lends the same two. */
function lentTypes(checker: ts.TypeChecker, lent: LentThrough): string {
  let printed = lentPrinted.get(checker);
  if (!printed) lentPrinted.set(checker, (printed = new WeakMap()));
  let text = printed.get(lent.literal);
  if (text === undefined) {
    text = `\n${checker.typeToString(checker.getTypeAtLocation(lent.literal), undefined, FORMAT)}` +
      `\n${checker.typeToString(checker.getTypeAtLocation(lent.variable.name), undefined, FORMAT)}`;
    printed.set(lent.literal, text);
  }
  return text;
}

/** lentTypes' texts, per checker (a node may be in the programs of two checkers) and literal. */
const lentPrinted = new WeakMap<ts.TypeChecker, WeakMap<ts.ObjectLiteralExpression, string>>();
