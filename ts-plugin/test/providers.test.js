// NestJS providers injected by token: `@Inject(TOKEN)` (string, const or symbol tokens) and
// abstract-class tokens resolved through the module's `providers: [{ provide, useClass |
// useExisting | useFactory }]`; calls on the member are followed into the bound class.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { scanSources, flatSteps, ENTITIES } = require("./helpers");

const FILES = {
  "src/entities.ts": ENTITIES,
  "src/ports.ts": `import { EntityManager } from "typeorm";
export const MAILER = "MAILER";
export const AUDIT = Symbol("AUDIT");
export interface Mailer { send(to: string): Promise<void>; }
export interface Audit { record(em: EntityManager, id: number): Promise<void>; }
export abstract class Notifier { abstract notify(id: number): Promise<void>; }
`,
  "src/adapters.ts": `import axios from "axios";
import * as nodemailer from "nodemailer";
import { EntityManager } from "typeorm";
import { Account } from "./entities";
import { Mailer, Audit, Notifier } from "./ports";
export class SmtpMailer implements Mailer {
  private t = nodemailer.createTransport({});
  async send(to: string) { await this.t.sendMail({ to }); }
}
export class DbAudit implements Audit {
  async record(em: EntityManager, id: number) { await em.update(Account, { id }, { frozen: true }); }
}
export class WebhookNotifier extends Notifier {
  async notify(id: number) { await axios.post("https://hooks", { id }); }
}
`,
  "src/module.ts": `import { Module } from "@nestjs/common";
import { MAILER, AUDIT, Notifier } from "./ports";
import { SmtpMailer, DbAudit, WebhookNotifier } from "./adapters";
import { Service } from "./service";
@Module({
  providers: [
    Service,
    { provide: MAILER, useClass: SmtpMailer },
    { provide: AUDIT, useFactory: () => new DbAudit() },
    { provide: Notifier, useExisting: WebhookNotifier },
  ],
})
export class AppModule {}
`,
  "src/service.ts": `import { Inject, Injectable } from "@nestjs/common";
import { DataSource } from "typeorm";
import { User } from "./entities";
import { MAILER, AUDIT, Mailer, Audit, Notifier } from "./ports";
@Injectable()
export class Service {
  constructor(private ds: DataSource, @Inject(MAILER) private mailer: Mailer, @Inject(AUDIT) private audit: Audit, private notifier: Notifier,
              @Inject("UNBOUND") private other: Mailer) {}
  async run(id: number) {
    await this.ds.transaction(async (em) => {
      await em.findOneBy(User, { id });
      await this.mailer.send("a@b");
      await this.audit.record(em, id);
      await this.notifier.notify(id);
      await this.other.send("x");
    });
  }
}
`,
};

test("members injected by token are followed into the bound class (useClass, useFactory, useExisting)", () => {
  const ir = scanSources(FILES);
  const steps = flatSteps(ir.transactions[0]).map((s) =>
    s.node === "statement" ? `statement ${s.entity} ${s.kind}` : s.node === "effect" ? `effect ${s.category}` : `unresolved ${s.reason} ${s.callee}`);
  assert.deepEqual(steps, [
    "statement User read",
    "effect email",
    "statement Account write",
    "effect http",
    // an unbound token: the member's interface has one implementation in the application
    // (class-hierarchy analysis, hierarchy.ts), walked as a dispatch candidate
    "effect email",
  ]);
});
