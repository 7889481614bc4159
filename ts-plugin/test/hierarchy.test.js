// Class-hierarchy analysis: a call on a receiver typed by an interface or abstract class of the
// application is walked into every implementation (declared with extends/implements, or put
// where the interface is expected, as in a default configuration object), each in an arm of a
// branch whose steps carry `<dispatch NAME: N candidates>` in `via`; more than 8 candidates is
// an honest unresolved call.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, flatSteps, ENTITIES } = require("./helpers");

function describe(s) {
  if (s.node === "statement") return `statement ${s.entity} ${s.kind}`;
  if (s.node === "effect") return `effect ${s.category}`;
  return `unresolved ${s.reason} ${s.callee}${s.detail ? ` (${s.detail})` : ""}`;
}

const STRATEGIES = {
  "src/entities.ts": ENTITIES,
  "src/strategy.ts": `import { EntityManager } from "typeorm";
export interface CacheStrategy { set(em: EntityManager, key: string, value: string): Promise<void>; }
export abstract class Hasher { abstract hash(s: string): Promise<string>; }
`,
  "src/impls.ts": `import Redis from "ioredis";
import { EntityManager } from "typeorm";
import { Account } from "./entities";
import { CacheStrategy, Hasher } from "./strategy";
export class MemoryCache implements CacheStrategy {
  private m = new Map<string, string>();
  async set(em: EntityManager, key: string, value: string) { this.m.set(key, value); }
}
export class BaseTableCache implements CacheStrategy {
  async set(em: EntityManager, key: string, value: string) { await em.update(Account, { id: Number(key) }, { frozen: value === "1" }); }
}
export class AuditedTableCache extends BaseTableCache {}
/** no \`implements\`: it fits the interface and the default configuration puts it there */
export class RedisCache {
  private client = new Redis();
  async set(em: EntityManager, key: string, value: string) { await this.client.set(key, value); }
}
export class Bcrypt extends Hasher { async hash(s: string) { return s + "!"; } }
`,
  "src/config.ts": `import { CacheStrategy } from "./strategy";
import { RedisCache } from "./impls";
export interface AuthOptions { cacheStrategy: CacheStrategy; }
export const defaultConfig: { auth: AuthOptions } = { auth: { cacheStrategy: new RedisCache() } };
`,
  "src/service.ts": `import { DataSource } from "typeorm";
import { User } from "./entities";
import { CacheStrategy, Hasher } from "./strategy";
import { defaultConfig } from "./config";
export class LoginService {
  private cache: CacheStrategy;
  constructor(private ds: DataSource, private hasher: Hasher) { this.cache = defaultConfig.auth.cacheStrategy; }
  async login(id: number) {
    await this.ds.transaction(async (em) => {
      const u = await em.findOneBy(User, { id });
      await this.hasher.hash(u!.email);
      await this.cache.set(em, String(id), "1");
    });
  }
}
`,
};

test("interface and abstract methods are walked into every implementation, one arm each", () => {
  const ir = scanSources(STRATEGIES);
  assert.equal(ir.transactions.length, 1);
  const tx = ir.transactions[0];
  assert.deepEqual(flatSteps(tx).map(describe), [
    "statement User read",
    // MemoryCache.set runs nothing; BaseTableCache and AuditedTableCache share one method
    "statement Account write",
    "effect cache",
  ]);
  const branches = tx.steps.filter((s) => s.node === "branch");
  assert.equal(branches.length, 1, "the abstract Hasher has one implementation without statements: no branch with steps");
  const cacheBranch = branches[0];
  assert.equal(cacheBranch.arms.length, 3);
  assert.deepEqual(cacheBranch.arms.map((a) => a.length), [0, 1, 1]);
  const write = cacheBranch.arms[1][0];
  assert.deepEqual(write.via, ["<dispatch src.strategy.CacheStrategy.set: 3 candidates>", "src.impls.BaseTableCache.set"]);
  const redis = cacheBranch.arms[2][0];
  assert.equal(redis.callee, "ioredis.set");
  // the effect is reported at the dispatch call in the transaction's path (which candidate
  // runs is configuration); `via` goes down to where the library call is written
  assert.deepEqual([redis.file, redis.line], [cacheBranch.file, cacheBranch.line]);
  assert.equal(redis.file, "src/service.ts");
  assert.deepEqual(redis.via, ["<dispatch src.strategy.CacheStrategy.set: 3 candidates>", "src.impls.RedisCache.set", "<effect at src/impls.ts:16>"]);
});

test("a structural implementation counts only where the application puts it in the interface's place", () => {
  const files = { ...STRATEGIES };
  files["src/config.ts"] = `import { RedisCache } from "./impls";
export const other = { plain: new RedisCache() };
`;
  const ir = scanSources(files);
  const steps = flatSteps(ir.transactions[0]).map(describe);
  assert.deepEqual(steps, ["statement User read", "statement Account write"]);
});

test("an argument counts where the parameter is typed by the interface, not where a generic parameter takes the class itself", () => {
  const withConfig = (config) => scanSources({ ...STRATEGIES, "src/config.ts": config });
  const REGISTRY = `import { CacheStrategy } from "./strategy";
import { RedisCache } from "./impls";
export class Registry {
  use(s: CacheStrategy) {}
  keep<T>(value: T) {}
  keepAll<T extends object>(values: T[], first: T) {}
  keepBounded<T extends CacheStrategy>(value: T) {}
}
export const registry = new Registry();
`;
  // typed by the interface: RedisCache is a candidate
  const typed = withConfig(REGISTRY + "registry.use(new RedisCache());\n");
  assert.deepEqual(flatSteps(typed.transactions[0]).map(describe), ["statement User read", "statement Account write", "effect cache"]);
  // a type parameter of its own (inferred from the argument: RedisCache itself), an array, a
  // parameter whose type parameter another parameter mentions, a bound the class satisfies
  // only by its shape: none puts RedisCache in CacheStrategy's place
  for (const call of ["registry.keep(new RedisCache());", "registry.keepAll([], new RedisCache());", "registry.keepBounded(new RedisCache());"]) {
    const ir = withConfig(REGISTRY + call + "\n");
    assert.deepEqual(flatSteps(ir.transactions[0]).map(describe), ["statement User read", "statement Account write"], call);
  }
});

test("more than 8 implementations: one unresolved dynamic-dispatch call with the count", () => {
  const impls = Array.from({ length: 9 }, (_, i) => `export class S${i} implements Step { async run(em: EntityManager) { await em.update(Account, { id: ${i} }, { frozen: true }); } }`);
  const ir = scanSources({
    "src/entities.ts": ENTITIES,
    "src/steps.ts": `import { EntityManager } from "typeorm";
import { Account } from "./entities";
export interface Step { run(em: EntityManager): Promise<void>; }
${impls.join("\n")}
`,
    "src/service.ts": `import { DataSource } from "typeorm";
import { Step } from "./steps";
export class Runner {
  constructor(private ds: DataSource, private step: Step) {}
  async go() { await this.ds.transaction(async (em) => { await this.step.run(em); }); }
}
`,
  });
  assert.deepEqual(flatSteps(ir.transactions[0]).map(describe), ["unresolved dynamic-dispatch src.steps.Step.run (9 candidates)"]);
});

test("an interface without an implementation in the application stays unresolved", () => {
  const ir = scanSources({
    "src/entities.ts": ENTITIES,
    "src/port.ts": `export interface Payments { charge(id: number): Promise<void>; }\n`,
    "src/service.ts": `import { DataSource } from "typeorm";
import { User } from "./entities";
import { Payments } from "./port";
export class Checkout {
  constructor(private ds: DataSource, private payments: Payments) {}
  async pay(id: number) { await this.ds.transaction(async (em) => { await em.findOneBy(User, { id }); await this.payments.charge(id); }); }
}
`,
  });
  assert.deepEqual(flatSteps(ir.transactions[0]).map(describe), ["statement User read", "unresolved dynamic-dispatch src.port.charge"]);
});

test("implementations in test code (specs, mocks, e2e fixtures) are no candidates", () => {
  const files = { ...STRATEGIES };
  files["src/cache.mock.ts"] = `import { EntityManager } from "typeorm";
import { CacheStrategy } from "./strategy";
export class MockCache implements CacheStrategy { async set(em: EntityManager, k: string, v: string) { await fetch("http://x"); } }
`;
  files["e2e/fixtures/cache.ts"] = files["src/cache.mock.ts"].replace(/\.\/strategy/, "../../src/strategy");
  const ir = scanSources(files);
  const branch = ir.transactions[0].steps.find((s) => s.node === "branch");
  assert.equal(branch.arms.length, 3);
  assert.ok(!flatSteps(ir.transactions[0]).some((s) => s.category === "http"));
});

test("a method that returns no promise (a logger) is not dispatched: nothing waits on it", () => {
  const ir = scanSources({
    "src/entities.ts": ENTITIES,
    "src/log.ts": `import { EntityManager } from "typeorm";
import { Account } from "./entities";
export interface Log { warn(em: EntityManager, m: string): void; }
export class DbLog implements Log { warn(em: EntityManager, m: string) { void em.update(Account, { id: 1 }, { frozen: true }); } }
`,
    "src/service.ts": `import { DataSource } from "typeorm";
import { Log } from "./log";
export class S {
  constructor(private ds: DataSource, private log: Log) {}
  async go() { await this.ds.transaction(async (em) => { this.log.warn(em, "x"); }); }
}
`,
  });
  assert.ok(!ir.transactions[0].steps.some((s) => s.node === "branch"));
});
