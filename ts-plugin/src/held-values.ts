// Method calls the walk decides from its own value of the receiver, without the checker. The
// repository-accessor and ActiveRecord checks type every receiver they are asked about, and
// typing is most of what the walks cost in the checker; an array the walk holds (a literal, a
// `map` result, rows it fetched) is neither a transactional connection nor an entity class, so
// its `forEach`/`map`/`push` calls are decided without typing it. On vendure's core this leaves
// about 1,000 of the explicit walks' 11,000 checker types out (400 of the scan's).
import * as ts from "typescript";
import { Value } from "./values";

/** The walk holds the receiver as an array: built in the walk, mapped, or rows it fetched. */
export function heldArray(v: Value): boolean {
  return !!(v.items || v.elems || v.obj?.many) && !v.handle && !v.qb;
}

/** When set, each decision made from a held value is also made by the checker and both handed
 *  over (ts-plugin/test/held-values.test.js compares them over the samples and the vectors). */
export const heldValueCheck: { compare?: (call: ts.CallExpression, byChecker: { accessor: boolean; activeRecord: boolean }) => void } = {};
