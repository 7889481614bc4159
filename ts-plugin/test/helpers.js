// Shared test helpers: build throwaway apps from inline sources, scan them, and read the IR.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { scan } = require("../dist/scan");

const REPO = path.resolve(__dirname, "..", "..");

/** Writes `files` ({relative path: source}) to a fresh temp folder and returns its path. */
function makeApp(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "txscan-ts-"));
  for (const [rel, text] of Object.entries(files)) {
    const full = path.join(dir, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  return dir;
}

/** Runs `fn` on a fresh app made of `files` (makeApp), removed afterwards; returns what fn returns. */
function withApp(files, fn) {
  const dir = makeApp(files);
  try {
    return fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Scans a folder and returns the parsed IR records, grouped. */
function scanDir(dir, options = {}) {
  const result = scan(dir, options);
  const records = irRecords(result.ir);
  return {
    text: result.ir,
    records,
    meta: records[0],
    entities: records.filter((r) => r.type === "entity"),
    // explicit transactions; the statements outside them (boundary `autocommit`) apart
    transactions: records.filter((r) => r.type === "transaction" && r.boundary !== "autocommit"),
    autocommit: records.filter((r) => r.type === "transaction" && r.boundary === "autocommit"),
    diagnostics: records.filter((r) => r.type === "diagnostic"),
  };
}

/** Scans inline sources (a map of files, or one service file with the common entities). */
function scanSources(files, options = {}) {
  const dir = makeApp(typeof files === "string" ? { "src/entities.ts": ENTITIES, "src/service.ts": files } : files);
  try {
    return scanDir(dir, options);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** All statement/effect/unresolved steps of a transaction, depth first, in order. */
function flatSteps(tx) {
  const out = [];
  const walk = (steps) => {
    for (const s of steps) {
      if (s.node === "branch") s.arms.forEach(walk);
      else if (s.node === "loop") walk(s.body);
      else out.push(s);
    }
  };
  walk(tx.steps);
  return out;
}

function statements(tx) {
  return flatSteps(tx).filter((s) => s.node === "statement");
}

/** Compact view of a statement: "Entity kind api pk=eq[input:id]" for readable asserts. */
function terms(pred) {
  if (!pred) return [];
  if ("attribute" in pred) return [pred];
  return pred.args.flatMap(terms);
}

/** Common entities used by most fixtures. */
const ENTITIES = `
import { Entity, PrimaryGeneratedColumn, Column, ManyToOne, OneToMany, JoinColumn } from "typeorm";

@Entity()
export class User {
  @PrimaryGeneratedColumn() id: number;
  @Column({ unique: true }) email: string;
  @Column() name: string;
  @OneToMany(() => Account, (a) => a.owner) accounts: Account[];
}

@Entity("accounts")
export class Account {
  @PrimaryGeneratedColumn() id: number;
  @Column() balance: number;
  @Column({ default: false }) frozen: boolean;
  @ManyToOne(() => User, (u) => u.accounts) @JoinColumn({ name: "owner_id" }) owner: User;
  @Column() ownerId: number;
}
`;

/** The bundled TypeORM sample applications (corpus/samples/typeorm), by name. */
const SAMPLES = path.join(REPO, "corpus", "samples", "typeorm");
function sampleApps() {
  return fs.readdirSync(SAMPLES).sort().filter((n) => fs.statSync(path.join(SAMPLES, n)).isDirectory())
    .map((name) => ({ name, dir: path.join(SAMPLES, name) }));
}

/** The records of an IR text (JSON lines). */
function irRecords(text) {
  return text.trimEnd().split("\n").map((l) => JSON.parse(l));
}

/** Every call expression of a source file, in source order. */
function callsIn(sf) {
  const ts = require("typescript");
  const out = [];
  const visit = (n) => {
    if (ts.isCallExpression(n)) out.push(n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

module.exports = { REPO, callsIn, SAMPLES, makeApp, withApp, scanDir, scanSources, flatSteps, statements, terms, ENTITIES, sampleApps, irRecords };

/** The only transaction of a one-service fixture (fails when there is not exactly one). */
function onlyTx(source, options) {
  const ir = scanSources(source, options);
  if (ir.transactions.length !== 1) throw new Error(`expected 1 transaction, got ${ir.transactions.length}: ${JSON.stringify(ir.transactions.map((t) => t.id))}`);
  return { tx: ir.transactions[0], ir };
}

/** "Entity kind api" summary of each statement, in order. */
function summary(tx) {
  return statements(tx).map((s) => `${s.entity} ${s.kind} ${s.api}`);
}

/** "attribute op sourcekinds" of every predicate term of a statement. */
function termSummary(st) {
  return terms(st.predicate).map((t) => `${t.attribute} ${t.op} ${t.sources.map((s) => s.kind + (s.name ? ":" + s.name : "") + (s.step ? ":" + s.step : "")).join("+")}`);
}

/** Wraps transaction body code in a service with the usual imports. */
function inTx(body, extraImports = "") {
  return `import { DataSource, EntityManager, Repository, In, Not, MoreThan, LessThan, Between, Like, ILike, IsNull, Any, Raw, And, Or, MoreThanOrEqual, LessThanOrEqual, Brackets } from "typeorm";
import { User, Account } from "./entities";
${extraImports}
export class Service {
  constructor(private ds: DataSource, private users: Repository<User>, private accounts: Repository<Account>) {}
  async run(id: number, ids: number[], email: string, amount: number, dto: { name: string; id: number }) {
    await this.ds.transaction(async (em) => {
${body}
    });
  }
}
`;
}

module.exports.onlyTx = onlyTx;
module.exports.summary = summary;
module.exports.termSummary = termSummary;
module.exports.inTx = inTx;
