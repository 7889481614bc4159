// Entities: decorators, EntitySchema, keys, unique sets, relations, inheritance.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources } = require("./helpers");

const entities = (files) => Object.fromEntries(scanSources(files).entities.map((e) => [e.name, e]));

test("columns, keys, unique sets, relations with join columns", () => {
  const e = entities({ "src/model.ts": `import { Entity, Column, PrimaryGeneratedColumn, PrimaryColumn, ManyToOne, OneToOne, ManyToMany, OneToMany, JoinColumn, JoinTable, Index, Unique, RelationId } from "typeorm";
@Entity("tenants") export class Tenant { @PrimaryColumn() slug: string; @OneToMany(() => Member, (m) => m.tenant) members: Member[]; }
@Entity() @Unique(["tenant", "handle"]) @Index(["email", "tenant"], { unique: true }) @Index(["createdAt"])
export class Member {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column() handle: string;
  @Column({ unique: true, name: "e_mail" }) email: string;
  @Index({ unique: true }) @Column() badge: number;
  @Column() createdAt: Date;
  @ManyToOne(() => Tenant, (t) => t.members) @JoinColumn({ name: "tenant_slug" }) tenant: Tenant;
  @RelationId((m: Member) => m.tenant) tenantSlug: string;
  @OneToOne(() => Profile) @JoinColumn() profile: Profile;
  @ManyToMany(() => Group) @JoinTable() groups: Group[];
}
@Entity() export class Profile { @PrimaryGeneratedColumn() id: number; }
@Entity() export class Group { @PrimaryGeneratedColumn() id: number; @ManyToMany(() => Member, (m) => m.groups) members: Member[]; }
@Entity() export class Legacy { @Column({ primary: true }) code: string; }` });
  assert.deepEqual(e.Tenant.pk, ["slug"]);
  assert.equal(e.Tenant.table, "tenants");
  assert.equal(e.Member.table, "member");
  assert.deepEqual(e.Member.pk, ["id"]);
  assert.deepEqual(e.Member.unique, [["tenant", "handle"], ["email", "tenant"], ["email"], ["badge"], ["profile"]]);
  assert.deepEqual(e.Member.fields, ["id", "handle", "email", "badge", "createdAt", "tenant", "profile", "groups"]);
  assert.deepEqual(e.Member.relations, [
    { attribute: "tenant", kind: "fk", target: "Tenant", reverse: "members" },
    { attribute: "profile", kind: "o2o", target: "Profile", reverse: null },
    { attribute: "groups", kind: "m2m", target: "Group", reverse: null },
  ]);
  assert.deepEqual(e.Group.relations, []);
  assert.deepEqual(e.Legacy.pk, ["code"]);
  assert.equal(e.Member.qualname, "src.model.Member");
  assert.equal(e.Member.abstract, false);
});

test("inherited columns from the app's own abstract base, even named BaseEntity", () => {
  const e = entities({
    "src/base.ts": `import { PrimaryGeneratedColumn, CreateDateColumn } from "typeorm";
export abstract class BaseEntity { @PrimaryGeneratedColumn() id: number; @CreateDateColumn() createdAt: Date; }`,
    "src/model.ts": `import { Entity, Column } from "typeorm";
import { BaseEntity } from "./base";
@Entity() export class Invoice extends BaseEntity { @Column({ unique: true }) number: string; }`,
  });
  assert.deepEqual(e.Invoice.pk, ["id"]);
  assert.deepEqual(e.Invoice.fields, ["id", "createdAt", "number"]);
  assert.equal(e.BaseEntity.abstract, true);
});

test("ViewEntity, ChildEntity (table inheritance), EntitySchema, ActiveRecord BaseEntity", () => {
  const e = entities({ "src/model.ts": `import { Entity, ViewEntity, ViewColumn, ChildEntity, TableInheritance, Column, PrimaryGeneratedColumn, EntitySchema, BaseEntity } from "typeorm";
@ViewEntity({ name: "totals", expression: "SELECT 1" }) export class Totals { @ViewColumn() n: number; }
@Entity("content") @TableInheritance({ column: "type" }) export class Content { @PrimaryGeneratedColumn() id: number; }
@ChildEntity() export class Photo extends Content { @Column() url: string; }
export const Tag = new EntitySchema({ name: "Tag", columns: { id: { primary: true, type: Number }, label: { type: String, unique: true } },
  relations: { owner: { type: "many-to-one", target: "Photo", joinColumn: { name: "owner_id" } } }, uniques: [{ columns: ["label", "owner"] }] });
@Entity() export class Post extends BaseEntity { @Column() title: string; }` });
  assert.equal(e.Totals.table, "totals");
  assert.deepEqual(e.Photo.pk, ["id"]);
  assert.equal(e.Photo.table, "content");
  assert.deepEqual(e.Tag.pk, ["id"]);
  assert.deepEqual(e.Tag.unique, [["label"], ["label", "owner"]]);
  assert.equal(e.Tag.table, "tag");
  assert.deepEqual(e.Tag.relations, [{ attribute: "owner", kind: "fk", target: "Photo", reverse: null }]);
  assert.deepEqual(e.Post.pk, ["id"]);
});

test("name clashes: the later entity is named by its qualified name", () => {
  const names = scanSources({
    "src/a/user.ts": `import { Entity, PrimaryGeneratedColumn } from "typeorm"; @Entity() export class User { @PrimaryGeneratedColumn() id: number; }`,
    "src/b/user.ts": `import { Entity, PrimaryGeneratedColumn } from "typeorm"; @Entity("b_user") export class User { @PrimaryGeneratedColumn() id: number; }`,
  }).entities.map((e) => e.name);
  assert.deepEqual(names, ["User", "src.b.user.User"]);
});

test("classes that are not entities are not reported", () => {
  const e = entities({ "src/x.ts": `import { Column } from "typeorm";
export class Dto { @Column() name: string; }
export class Service {}` });
  assert.deepEqual(Object.keys(e), []);
});

test("the app's own decorator wrappers around TypeORM's decorators", () => {
  const e = entities({
    "src/decorators.ts": `import { Entity as TypeOrmEntity, Column as TypeOrmColumn, PrimaryGeneratedColumn } from "typeorm";
export function AppEntity(name?: string): ClassDecorator { return (target: any) => { TypeOrmEntity(name)(target); }; }
export const AppColumn = (options?: any): PropertyDecorator => (target: any, key: any) => { TypeOrmColumn(options)(target, key); };
export function AppId(): PropertyDecorator { return PrimaryGeneratedColumn("uuid"); }`,
    "src/model.ts": `import { AppEntity, AppColumn, AppId } from "./decorators";
@AppEntity("widgets") export class Widget { @AppId() id: string; @AppColumn({ unique: true }) code: string; }`,
  });
  assert.equal(e.Widget.table, "widgets");
  assert.deepEqual(e.Widget.pk, ["id"]);
  assert.deepEqual(e.Widget.unique, [["code"]]);
});
