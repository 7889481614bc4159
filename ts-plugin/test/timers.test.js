// Timers: a sleep is an effect only where the transaction waits on it (an awaited timer promise
// in its own path); a timeout raced against a statement and the back-off of a loop that retries
// starting the transaction are not.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, flatSteps, inTx, scanSources, ENTITIES } = require("./helpers");
const { CONTEXT, CONNECTION, INTERCEPTOR, DECORATORS } = require("./request-context-fixture");

const sleeps = (body, imports = "", extra = "") =>
  flatSteps(onlyTx(inTx(body, imports) + extra).tx).filter((s) => s.node === "effect" && s.category === "sleep").map((e) => `${e.callee} ${e.line}`);

const HELPERS = `
function sleep(ms: number) { return new Promise((resolve) => setTimeout(resolve, ms)); }
async function pause(ms: number) { await new Promise((resolve) => setTimeout(resolve, ms)); }
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  return Promise.race([new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms)), work]);
}
`;

test("awaited timers are sleeps: inline, through helpers returning or awaiting the promise, Promise.all", () => {
  const got = sleeps(`
      await em.findOneBy(User, { id });
      await new Promise((r) => setTimeout(r, 10));
      await sleep(5);
      await pause(5);
      await Promise.all([em.findOneBy(Account, { id }), sleep(5)]);
      await wait(5);`, `import { setTimeout as wait } from "timers/promises";`, HELPERS);
  assert.equal(got.length, 5);
  assert.ok(got.every((g) => g.startsWith("setTimeout") || g.startsWith("timers/promises")), got.join());
});

test("not sleeps: timeout guards raced against a statement, timers never awaited", () => {
  assert.deepEqual(sleeps(`
      const a = await withTimeout(em.findOneBy(User, { id }), 50);
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("slow")), 100));
      const b = await Promise.race([em.findOneBy(Account, { id }), timeout]);
      await Promise.race([em.findOneBy(Account, { id: 2 }), wait(100)]);
      const pending = sleep(10);
      setTimeout(() => undefined, 10);
      await em.save(a);`, `import { setTimeout as wait } from "timers/promises";`, HELPERS), []);
});

test("back-off between attempts to start a transaction is outside it; a sleep between its statements is not", () => {
  // the interceptor retries startTransaction() with a growing delay (vendure's TransactionWrapper)
  const interceptor = INTERCEPTOR.replace("await qr.startTransaction(level);", `let attempts = 0;
    while (attempts < 3) {
      try {
        await qr.startTransaction(level);
        return;
      } catch (e) {
        attempts++;
      }
      await new Promise((resolve) => setTimeout(resolve, attempts * 20));
    }`);
  assert.notEqual(interceptor, INTERCEPTOR);
  const resolver = `import { RequestContext } from "./context";
import { Transaction } from "./decorators";
import { TransactionalConnection } from "./connection";
import { User } from "./entities";
export class UserResolver {
  constructor(private connection: TransactionalConnection) {}
  @Transaction()
  async rename(ctx: RequestContext, id: number) {
    const u = await this.connection.getRepository(ctx, User).findOneByOrFail({ id });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await this.connection.getRepository(ctx, User).save(u);
  }
}
`;
  const ir = scanSources({
    "src/entities.ts": ENTITIES, "src/context.ts": CONTEXT, "src/connection.ts": CONNECTION, "src/interceptor.ts": interceptor,
    "src/decorators.ts": DECORATORS, "src/resolver.ts": resolver,
  });
  assert.equal(ir.transactions.length, 1);
  const effects = flatSteps(ir.transactions[0]).filter((s) => s.node === "effect").map((e) => `${e.file}:${e.line}`);
  assert.deepEqual(effects, ["src/resolver.ts:10"]);
});
