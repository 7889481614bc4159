// A member typed by an import type (`client: import("ioredis").Redis`, the form used when the
// library is loaded lazily with `await import(...)`) is an instance of that library: calls on
// it are the library's effects even when the package is not installed.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, flatSteps } = require("./helpers");

test("calls on a member typed import(\"ioredis\").Redis are cache effects", () => {
  const { tx } = onlyTx(`import { DataSource } from "typeorm";
import { User } from "./entities";
export class Store {
  private client: import("ioredis").Redis;
  async init() { const m = await import("ioredis"); this.client = new m.default(); }
  async put(k: string, v: string) { await this.client.set(k, v); }
}
export class Service {
  constructor(private ds: DataSource, private store: Store) {}
  async run(id: number) {
    await this.ds.transaction(async (em) => {
      await em.findOneBy(User, { id });
      await this.store.put("k", "v");
    });
  }
}
`);
  const effects = flatSteps(tx).filter((s) => s.node === "effect").map((s) => `${s.category} ${s.callee}`);
  assert.deepEqual(effects, ["cache ioredis.Redis.set"]);
});
