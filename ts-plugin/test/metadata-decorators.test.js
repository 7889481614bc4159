// Literal arguments of decorators whose factory only records them as reflection metadata are
// blanked before the program is parsed (src/metadata-decorators.ts). Each test fails if an
// argument a record needs were blanked (a TypeORM column's options through an app wrapper, a
// provider's token, a function) or if blanking changed the scan's output.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("path");
const ts = require("typescript");
const { setupProgram } = require("../dist/program");
const { MetadataDecorators } = require("../dist/metadata-decorators");
const { scanDir, withApp } = require("./helpers");

const ACCESS = `const key: symbol = Symbol("access");
export default (acl: { read: Array<string>; update?: Array<string> }): unknown => {
  return Reflect.metadata(key, acl);
};
`;

const ENTITY = `import { Entity, PrimaryGeneratedColumn, Column } from "typeorm";
import Access from "./meta/access";
import { AppColumn } from "./meta/column";
import { Meta } from "./meta/meta";
import Roles from "./roles";

@Access({
  read: [Roles.Admin, Roles.Member],
  update: [Roles.Admin],
})
@Entity()
export class User {
  @PrimaryGeneratedColumn() id: number;
  @Access({ read: [Roles.Admin], update: [] })
  @AppColumn({ unique: true })
  email: string;
  @Meta({ provide: "mailer", useClass: Roles })
  @Column()
  name: string;
  @Meta({ type: () => User })
  @Column({ default: 0 })
  visits: number;
}
`;

const APP = {
  "src/meta/access.ts": ACCESS,
  "src/meta/column.ts": `import { Column, ColumnOptions } from "typeorm";
export const AppColumn = (options: ColumnOptions): PropertyDecorator => Column(options);
`,
  "src/meta/meta.ts": `export const Meta = (value: object): unknown => Reflect.metadata("meta", value);\n`,
  "src/roles.ts": `enum Roles { Admin = "admin", Member = "member" }\nexport default Roles;\n`,
  "src/user.entity.ts": ENTITY,
  "src/users.service.ts": `import { DataSource } from "typeorm";
import { User } from "./user.entity";
export class UsersService {
  constructor(private ds: DataSource) {}
  async touch(id: number) {
    await this.ds.transaction(async (m) => {
      const u = await m.findOneBy(User, { id });
      await m.update(User, { id }, { visits: u.visits + 1 });
    });
  }
}
`,
};

test("a metadata factory's literal arguments are blanked in the program; a TypeORM wrapper's, a provider's and a function's stay", () => {
  withApp(APP, (dir) => {
    const setup = setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
    const sf = setup.program.getSourceFiles().find((f) => f.fileName.endsWith("user.entity.ts"));
    assert.equal(sf.text.length, ENTITY.length);
    assert.deepEqual(sf.text.split("\n").map((l) => l.length), ENTITY.split("\n").map((l) => l.length));
    assert.ok(!sf.text.includes("Roles.Member") && !sf.text.includes("read: [Roles.Admin]"), "the metadata arguments are blanked");
    assert.match(sf.text, /@Access\(\{\s+\}\)\n@Entity\(\)/);
    assert.ok(sf.text.includes("@AppColumn({ unique: true })"), "a wrapper of TypeORM's Column keeps its options");
    assert.ok(sf.text.includes(`@Meta({ provide: "mailer", useClass: Roles })`), "an object an index looks for anywhere is kept");
    assert.ok(sf.text.includes("@Meta({ type: () => User })"), "an argument holding a function is kept");
    assert.equal(setup.program.getSyntacticDiagnostics(sf).length, 0);
  });
});

test("blanking changes no record: the same app whose factory also logs (not blanked) scans to the same bytes", () => {
  const blanked = withApp(APP, (dir) => scanDir(dir));
  const logging = ACCESS.replace("return Reflect.metadata(key, acl);", "console.log(acl); return Reflect.metadata(key, acl);");
  const whole = withApp({ ...APP, "src/meta/access.ts": logging }, (dir) => {
    const setup = setupProgram({ root: dir, maxFileBytes: 2_000_000, depth: Infinity });
    const sf = setup.program.getSourceFiles().find((f) => f.fileName.endsWith("user.entity.ts"));
    assert.equal(sf.text, ENTITY, "a factory that calls anything but Reflect's methods keeps its arguments");
    return scanDir(dir);
  });
  assert.equal(blanked.text.replace(/"root":"[^"]*"/, ""), whole.text.replace(/"root":"[^"]*"/, ""));
  const user = blanked.entities.find((e) => e.name === "User");
  assert.ok(user, "the entity is found");
  assert.deepEqual(blanked.transactions.map((t) => t.steps.filter((s) => s.node === "statement").map((s) => [s.api, s.entity])),
    [[["findOneBy", "User"], ["update", "User"]]]);
  assert.ok(JSON.stringify(user).includes("email"), "the wrapped column is an attribute of the entity");
});

// in-memory sources for the cases the program never blanks
function decorators(files) {
  return new MetadataDecorators({
    resolve: (spec, from) => {
      const file = path.posix.join(path.posix.dirname(from), `${spec}.ts`);
      return files[file] !== undefined ? file : undefined;
    },
    read: (file) => files[file],
  }, ts.ScriptTarget.ES2021);
}

const USE = `import Access from "./access";
@Access({ read: ["a"] })
export class A {}
`;

test("the arguments are blanked only when the factory and the name are certain", () => {
  assert.equal(decorators({ "/a/access.ts": ACCESS }).blanked("/a/use.ts", USE), USE.replace(`{ read: ["a"] }`, `{${" ".repeat(13)}}`));
  // Reflect declared by the module: not the global one
  const ownReflect = `const Reflect = { metadata: (k: unknown, v: unknown) => v };\n${ACCESS}`;
  assert.equal(decorators({ "/a/access.ts": ownReflect }).blanked("/a/use.ts", USE), undefined);
  // a factory that calls something else (here a TypeORM decorator would be found)
  const wraps = `import { Column } from "typeorm";\nexport default (o: object): unknown => Column(o);\n`;
  assert.equal(decorators({ "/a/access.ts": wraps }).blanked("/a/use.ts", USE), undefined);
  // re-exported from another module: the factory is not seen here
  assert.equal(decorators({ "/a/access.ts": `export { default } from "./impl";\n`, "/a/impl.ts": ACCESS }).blanked("/a/use.ts", USE), undefined);
  // the name is bound again in the file (a parameter hides the import)
  const shadowed = `${USE}export function f(Access: unknown): unknown { return Access; }\n`;
  assert.equal(decorators({ "/a/access.ts": ACCESS }).blanked("/a/use.ts", shadowed), undefined);
  // a name some index reads whatever its factory
  const inject = `import { Inject } from "./access";\nexport class B { constructor(@Inject({ token: "x" }) x: unknown) {} }\n`;
  assert.equal(decorators({ "/a/access.ts": `export const Inject = (o: object): unknown => Reflect.metadata("i", o);\n` }).blanked("/a/use.ts", inject), undefined);
  // a syntax error: the text is parsed and reported as it is
  assert.equal(decorators({ "/a/access.ts": ACCESS }).blanked("/a/use.ts", `${USE}export const x = (;\n`), undefined);
  // a decorated class inside a function is walked with it
  const nested = `import Access from "./access";\nexport function f(): unknown {\n  @Access({ read: ["a"] }) class C {}\n  return C;\n}\n`;
  assert.equal(decorators({ "/a/access.ts": ACCESS }).blanked("/a/use.ts", nested), undefined);
});
