// Reads of many-to-many junction tables. A `where` that goes through a ManyToMany relation
// (`find(Post, { where: { tags: { id: tagId } } })`) makes the database join the junction
// table: its rows are read, selected by the side the condition names (the tag's id), not by
// the junction's key (both sides). The junction read is reported as a statement of its own, the
// junction named `Owner_relation` after the owning side (as Django names `.through` models),
// with the attributes the condition uses: selecting by one side is a CDA mismatch there.
import { EntityIndex, EntityInfo } from "./entities";
import { Predicate } from "./ir";
import { wherePredicate } from "./predicates";
import { Value } from "./values";

export interface JunctionRead {
  entity: string;
  predicate: Predicate;
  dynamic: boolean;
}

/** The junction reads a where value of `info`'s entity makes (none without ManyToMany keys). */
export function junctionReads(where: Value | undefined, info: EntityInfo | undefined, entities: EntityIndex): JunctionRead[] {
  if (!where || !info) return [];
  const alternatives = where.items ?? [where];
  const out: JunctionRead[] = [];
  const seen = new Set<string>();
  for (const alt of alternatives) {
    for (const [key, sub] of alt.props ?? []) {
      const rel = info.relations.get(key);
      if (!rel || rel.decorator !== "ManyToMany" || !rel.targetName) continue;
      const target = entities.byName(rel.targetName);
      const entity = junctionName(info, rel.attribute, rel.owning, target, rel.inverse);
      // the condition on the target (`{ id: tagId }`) selects junction rows by the target's side
      const side = (target?.record.name ?? rel.targetName).replace(/^./, (c) => c.toLowerCase());
      const { predicate, dynamic } = wherePredicate(sub, target, entities);
      const renamed = rename(predicate, (attribute) => (attribute === "pk" ? `${side}Id` : `${side}.${attribute}`));
      const text = JSON.stringify([entity, renamed]);
      if (seen.has(text)) continue;
      seen.add(text);
      out.push({ entity, predicate: renamed, dynamic });
    }
  }
  return out;
}

function junctionName(owner: EntityInfo, attribute: string, owning: boolean, target: EntityInfo | undefined, inverse: string | null): string {
  if (owning || !target || !inverse) return `${owner.record.name}_${attribute}`;
  return `${target.record.name}_${inverse}`;
}

function rename(p: Predicate, f: (attribute: string) => string): Predicate {
  if ("attribute" in p) return { ...p, attribute: f(p.attribute) };
  return { bool: p.bool, args: p.args.map((a) => rename(a, f)) };
}
