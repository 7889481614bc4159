// Effects beyond the depth limit: a call the walk does not follow because of the depth limit
// is searched (without data flow) for catalogued effects in what it can run, through
// application functions and interface implementations; an effect found is reported at the
// cut-off call, beside the depth-limit unresolved step. Timers are not (a sleep counts only
// where it is awaited), and a chain without effects adds nothing.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, flatSteps } = require("./helpers");

function chain(last) {
  const fns = [];
  for (let i = 0; i < 8; i++) fns.push(`async function f${i}(x: number): Promise<void> { await f${i + 1}(x); }`);
  fns.push(`async function f8(x: number): Promise<void> { await notifier.notify(x); }`);
  return `import { DataSource } from "typeorm";
import axios from "axios";
import { setTimeout as sleep } from "timers/promises";
import { User } from "./entities";
interface Notifier { notify(x: number): Promise<void>; }
class Webhook implements Notifier { async notify(x: number) { ${last} } }
const notifier: Notifier = new Webhook();
${fns.join("\n")}
export class Service {
  constructor(private ds: DataSource) {}
  async run(id: number) {
    await this.ds.transaction(async (em) => {
      await em.findOneBy(User, { id });
      await f0(id);
    });
  }
}
`;
}

test("an HTTP call below the depth limit (through an interface) is reported at the cut-off call", () => {
  // the walk has no depth bound unless the project sets one (DECISIONS.md): set it here
  const { tx } = onlyTx(chain(`await axios.post("https://hooks", { x });`), { depth: 6 });
  const steps = flatSteps(tx);
  const limit = steps.find((s) => s.node === "unresolved" && s.reason === "depth-limit");
  const effect = steps.find((s) => s.node === "effect");
  assert.ok(limit && effect, JSON.stringify(steps));
  assert.equal(effect.category, "http");
  assert.equal(effect.callee, "axios.post");
  assert.equal(effect.line, limit.line);
});

test("timers and effect-free chains below the depth limit add no effect", () => {
  for (const last of ["await sleep(10);", "return;"]) {
    const { tx } = onlyTx(chain(last), { depth: 6 });
    const steps = flatSteps(tx);
    assert.ok(steps.some((s) => s.node === "unresolved" && s.reason === "depth-limit"));
    assert.ok(!steps.some((s) => s.node === "effect"), last);
  }
});

test("without a depth bound the same HTTP call is walked into and found where it is", () => {
  const { tx } = onlyTx(chain(`await axios.post("https://hooks", { x });`));
  const steps = flatSteps(tx);
  assert.ok(!steps.some((s) => s.node === "unresolved" && s.reason === "depth-limit"));
  const effect = steps.find((s) => s.node === "effect");
  assert.equal(effect.category, "http");
  // found inside Webhook.notify, reported at the dispatch call `notifier.notify(x)` of f8
  assert.equal(effect.line, 16);
  assert.equal(effect.via.at(-1), "<effect at src/service.ts:6>");
  assert.ok(effect.via.includes("<dispatch src.service.Notifier.notify: 1 candidate>"), JSON.stringify(effect.via));
});
