// Units told before walking them to record nothing outside transactions (src/service-calls.ts):
// the autocommit IR equals the one found by walking every unit, and the units left unwalked are
// exactly those whose calls of repository-named methods are an application service's.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const serviceCalls = require("../dist/service-calls");
const { scan } = require("../dist/scan");
const { catalogOf } = require("../dist/settings");
const { withApp, ENTITIES, sampleApps, statements, irRecords } = require("./helpers");

/** The scan's IR with the test in use and with every unit walked, and the units it spared
 *  (Class.method), in the order met. */
function bothWays(dir, options = {}) {
  const original = serviceCalls.recordsNothing;
  const spared = [];
  try {
    serviceCalls.recordsNothing = (env, fn) => {
      const quiet = original(env, fn);
      if (quiet) spared.push(`${fn.parent.name?.text}.${fn.name?.text}`);
      return quiet;
    };
    const told = scan(dir, options).ir;
    serviceCalls.recordsNothing = () => false;
    const walked = scan(dir, options).ir;
    return { told, walked, spared };
  } finally {
    serviceCalls.recordsNothing = original;
  }
}

const RESOLVER = `
import { BaseEntity, Column, DataSource, Entity, ManyToOne, PrimaryGeneratedColumn, Repository } from "typeorm";
import { Account, User } from "./entities";

@Entity()
export class Note extends BaseEntity {
  @PrimaryGeneratedColumn() id: number;
  @Column() text: string;
  @ManyToOne(() => User, { lazy: true }) author: Promise<User>;
}

export class UserService {
  constructor(private users: Repository<User>) {}
  async findOne(id: number) { return this.users.findOneBy({ id }); }
  async save(user: User) { return this.users.save(user); }
}

export class Registry {
  users: UserService;
  store: Repository<User>;
}

export class UserResolver {
  note: Note;
  user: User;
  registry: Registry;
  constructor(private userService: UserService, private accounts: Repository<Account>, private ds: DataSource) {}
  /** methods of its own class, a chain of members, a parameter: nothing recorded */
  async update(id: number) { return this.find(id); }
  async find(id: number) { return this.registry.users.findOne(id); }
  async pick(ids: number[], names: Map<number, string>) {
    names.set(1, "x");
    return ids.find((id) => id > 1);
  }
  /** a member of a chain that is a repository: a statement */
  async stored(id: number) { return this.registry.store.findOneBy({ id }); }
  /** a parameter that is a repository, or that is assigned one: statements */
  async byRepository(users: Repository<User>) { return users.find(); }
  async reassigned(users: UserService) {
    if (!users) users = this.accounts as any;
    return users.findOne(1);
  }
  /** a parameter that is an ActiveRecord entity: a statement */
  async keepNote(note: Note) { await note.save(); }
  /** a service's methods (units of their own): nothing is recorded here */
  async one(id: number) { return this.userService.findOne(id); }
  async rename(user: User) {
    user.name = "x";
    return this.userService.save(user);
  }
  /** a repository member: a statement */
  async account(id: number) { return this.accounts.findOneBy({ id }); }
  /** an ActiveRecord entity member */
  async keep() { await this.note.save(); }
  /** the manager of a member data source */
  async count() { return this.ds.manager.count(User); }
  /** in a callback, which the walk may run with another \`this\`: walked */
  async many(ids: number[]) { return Promise.all(ids.map((id) => this.userService.findOne(id))); }
  /** a member awaited (here a lazy relation loads): walked */
  async author(note: Note) {
    const author = await note.author;
    return this.userService.findOne(author.id);
  }
}
`;

const APP = { "src/entities.ts": ENTITIES, "src/resolver.ts": RESOLVER };

test("units calling only services' repository-named methods are not walked, and the IR is the walked one", () => {
  withApp(APP, (dir) => {
    const r = bothWays(dir);
    assert.equal(r.told, r.walked);
    assert.deepEqual(r.spared, ["UserResolver.update", "UserResolver.find", "UserResolver.pick", "UserResolver.one", "UserResolver.rename"]);
    // the units walked still give their statements
    const auto = irRecords(r.told).filter((t) => t.type === "transaction" && t.boundary === "autocommit");
    const apis = auto.map((t) => `${t.function.split(".").pop()} ${statements(t).map((s) => `${s.entity} ${s.api}`).join()}`).sort();
    assert.deepEqual(apis, ["account Account findOneBy", "author User lazy:author", "byRepository User find", "count User count", "findOne User findOneBy",
      "keep Note save", "keepNote Note save", "reassigned Account findOne", "save User save", "stored User findOneBy"]);
  });
});

test("with statements in the user's catalog every unit is walked", () => {
  withApp(APP, (dir) => {
    const catalog = catalogOf({ statements: { "src.resolver.UserService.findOne": "read" } });
    const r = bothWays(dir, { catalog });
    assert.equal(r.told, r.walked);
    assert.deepEqual(r.spared, []);
  });
});

for (const { name, dir } of sampleApps()) {
  test(`sample ${name}: units not walked change no autocommit transaction`, () => {
    const r = bothWays(dir);
    assert.equal(r.told, r.walked);
  });
}
