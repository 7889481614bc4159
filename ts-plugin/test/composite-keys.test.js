// Composite primary keys: the IR `pk` lists every key attribute; a statement with equalities on
// all of them selects by the key (one `pk` term); an equality on only some is not a key lookup.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, statements, termSummary, ENTITIES } = require("./helpers");

const MEMBERSHIP = `import { Entity, PrimaryColumn, Column, ManyToOne, JoinColumn } from "typeorm";
import { User } from "./entities";
@Entity()
export class Membership {
  @PrimaryColumn() teamId: number;
  @PrimaryColumn() userId: number;
  @ManyToOne(() => User) @JoinColumn({ name: "userId" }) user: User;
  @Column() role: string;
}
@Entity()
export class Tag {
  @PrimaryColumn() name: string;
}
`;

const SERVICE = `import { DataSource } from "typeorm";
import { Membership, Tag } from "./membership";
export class Service {
  constructor(private ds: DataSource) {}
  async run(teamId: number, userId: number, name: string) {
    await this.ds.transaction(async (em) => {
      const m = await em.findOneBy(Membership, { teamId, userId });
      await em.findBy(Membership, { teamId });
      await em.update(Membership, { teamId, userId, role: "member" }, { role: "owner" });
      await em.delete(Membership, { userId });
      await em.findOneBy(Tag, { name });
      await em.save(m);
    });
  }
}
`;

test("composite keys: all key columns are a key lookup, some of them are not", () => {
  const ir = scanSources({ "src/entities.ts": ENTITIES, "src/membership.ts": MEMBERSHIP, "src/service.ts": SERVICE });
  const ent = Object.fromEntries(ir.entities.map((e) => [e.name, e]));
  assert.deepEqual(ent.Membership.pk, ["teamId", "user"]);
  assert.deepEqual(ent.Tag.pk, ["name"]);
  const st = statements(ir.transactions[0]);
  assert.deepEqual(st.map(termSummary), [
    ["pk eq input:teamId+input:userId"],
    ["teamId eq input:teamId"],
    ["pk eq input:teamId+input:userId", "role eq constant"],
    ["user eq input:userId"],
    ["pk eq input:name"],
    ["pk eq input:teamId+input:userId"],
  ]);
});
