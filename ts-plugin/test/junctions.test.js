// A where through a ManyToMany relation reads the junction table: reported as a read of
// `Owner_relation` (named after the owning side, from either side), selected by the side the
// condition names, so the junction read is not a key lookup there.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, statements, termSummary } = require("./helpers");

const ENTITIES = `import { Entity, PrimaryGeneratedColumn, Column, ManyToMany, ManyToOne, JoinTable } from "typeorm";
@Entity() export class Tag { @PrimaryGeneratedColumn() id: number; @Column() label: string; @ManyToMany(() => Post, (p) => p.tags) posts: Post[]; }
@Entity() export class Author { @PrimaryGeneratedColumn() id: number; }
@Entity() export class Post {
  @PrimaryGeneratedColumn() id: number;
  @Column() title: string;
  @ManyToMany(() => Tag, (t) => t.posts) @JoinTable() tags: Tag[];
  @ManyToOne(() => Author) author: Author;
}
`;

function scan(body) {
  const svc = `import { DataSource } from "typeorm";
import { Post, Tag } from "./entities";
export class S {
  constructor(private ds: DataSource) {}
  async run(tagId: number, label: string, postId: number) { await this.ds.transaction(async (em) => { ${body} }); }
}`;
  const ir = scanSources({ "src/entities.ts": ENTITIES, "src/service.ts": svc });
  return statements(ir.transactions[0]).map((s) => `${s.entity} ${s.kind} ${termSummary(s).join(",")}`);
}

test("find options and findBy through a ManyToMany relation read its junction, from either side", () => {
  assert.deepEqual(scan(`await em.find(Post, { where: { tags: { id: tagId } } });`),
    ["Post read tags eq input:tagId", "Post_tags read tagId eq input:tagId"]);
  assert.deepEqual(scan(`await em.findBy(Tag, { posts: { id: postId } });`),
    ["Tag read posts eq input:postId", "Post_tags read postId eq input:postId"]);
});

test("a key lookup with a condition on the related rows reads the junction by that condition", () => {
  assert.deepEqual(scan(`await em.findOne(Post, { where: { id: postId, tags: { label } } });`),
    ["Post read pk eq input:postId,tags eq input:label", "Post_tags read tag.label eq input:label"]);
});

test("wheres without ManyToMany relations read no junction", () => {
  assert.deepEqual(scan(`await em.find(Post, { where: { title: "x", author: { id: postId } } });`),
    ["Post read title eq constant,author eq input:postId"]);
});
