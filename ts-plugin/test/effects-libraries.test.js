// Effects recognised by library and type: every @aws-sdk/* v3 client and presigner, aws-sdk v2
// services, minio, @google-cloud/*, redis clients, mail libraries; TypeORM's query result cache
// when it is Redis; and the user's own effect and database callees (`--settings`).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("child_process");
const path = require("path");
const { onlyTx, flatSteps, inTx, scanSources, makeApp, ENTITIES } = require("./helpers");
const { parseSettings } = require("../dist/settings");

const effects = (body, imports, options) =>
  flatSteps(onlyTx(inTx(body, imports), options).tx).filter((s) => s.node === "effect").map((e) => `${e.category} ${e.callee}`);

test("cloud SDKs: any @aws-sdk v3 client and presigner, aws-sdk v2 services, minio, @google-cloud/*", () => {
  assert.deepEqual(effects(`
      await kms.send(new EncryptCommand({} as any));
      await ddb.send(new PutItemCommand({} as any));
      await getSignedUrl(s3, new GetObjectCommand({} as any));
      await new AWS.Rekognition().detectLabels({} as any).promise();
      AWS.config.update({ region: "x" });
      await minio.presignedGetObject("b", "k");
      await bq.query("select 1");
      await bucket.file("k").save("x");`,
  `import { KMSClient, EncryptCommand } from "@aws-sdk/client-kms"; import { DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { S3Client, GetObjectCommand } from "@aws-sdk/client-s3"; import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import * as AWS from "aws-sdk"; import * as Minio from "minio"; import { BigQuery } from "@google-cloud/bigquery"; import { Storage } from "@google-cloud/storage";
const kms = new KMSClient({}); const ddb = new DynamoDBClient({}); const s3 = new S3Client({}); const minio = new Minio.Client({} as any);
const bq = new BigQuery(); const bucket = new Storage().bucket("b");`), [
    "http @aws-sdk/client-kms.KMSClient.send",
    "storage @aws-sdk/client-dynamodb.DynamoDBClient.send",
    "storage @aws-sdk/s3-request-presigner.getSignedUrl",
    "http aws-sdk.Rekognition.detectLabels",
    "storage minio.Client.presignedGetObject",
    "http @google-cloud/bigquery.BigQuery.query",
    "storage @google-cloud/storage.Storage.bucket.file.save",
  ]);
});

test("mail and redis clients beyond the first catalog", () => {
  assert.deepEqual(effects(`
      await resend.emails.send({} as any);
      await templates.send({} as any);
      await up.set("k", "v");`,
  `import { Resend } from "resend"; import Email from "email-templates"; import { Redis } from "@upstash/redis";
const resend = new Resend("k"); const templates = new Email(); const up = new Redis({} as any);`).map((e) => e.split(" ")[0]), ["email", "email", "cache"]);
});

const CACHED = `
      await em.find(User, { where: { id }, cache: 60000 });
      await em.find(Account, { where: { id } });
      await em.createQueryBuilder(User, "u").where("u.id = :id", { id }).cache(true).getOne();
      await em.createQueryBuilder(User, "u").where("u.id = :id", { id }).cache(false).getOne();`;
const dataSource = (cache) => `import { DataSource } from "typeorm";
export const ds = new DataSource({ type: "postgres", entities: [], cache: ${cache} });
`;

test("query result cache: a cache effect only when the data source caches in Redis", () => {
  const scanWith = (cache) => {
    const ir = scanSources({ "src/entities.ts": ENTITIES, "src/service.ts": inTx(CACHED), "src/data-source.ts": dataSource(cache) });
    return flatSteps(ir.transactions[0]).map((s) => (s.node === "effect" ? `effect ${s.callee}` : `${s.node} ${s.entity}`));
  };
  assert.deepEqual(scanWith(`{ type: "ioredis", options: { host: "localhost" } }`), [
    "effect typeorm.queryResultCache", "statement User", "statement Account", "effect typeorm.queryResultCache", "statement User", "statement User",
  ]);
  assert.deepEqual(scanWith(`{ type: "database", tableName: "query_cache" }`), ["statement User", "statement Account", "statement User", "statement User"]);
  assert.deepEqual(scanWith(`{ type: process.env.CACHE_TYPE as any }`), ["statement User", "statement Account", "statement User", "statement User"]);
});

const USER_CODE = `import { DataSource } from "typeorm";
import { User } from "./entities";
import { Client } from "legacy-store";
export class Mailer { async welcome(to: string) { return to.length; } }
export class Service {
  constructor(private ds: DataSource, private mailer: Mailer, private store: Client) {}
  async run(id: number, email: string) {
    await this.ds.transaction(async (em) => {
      await em.findOneBy(User, { id });
      await this.mailer.welcome(email);
      await this.store.put("user", { id });
      await this.store.ping();
    });
  }
}
`;

test("user catalogs: an app function as an effect, a library call as a statement (prefixes match)", () => {
  const catalog = parseSettings(JSON.stringify({ effects: { "src.service.Mailer.welcome": "email" }, statements: { "legacy-store.Client.put": "write" }, exclude: ["ignored by this front end"] }));
  const ir = scanSources({ "src/entities.ts": ENTITIES, "src/service.ts": USER_CODE }, { catalog });
  const steps = flatSteps(ir.transactions[0]).map((s) => (s.node === "effect" ? `effect ${s.category} ${s.callee}` : `${s.node} ${s.kind} ${s.api}${s.dynamic ? " dynamic" : ""}`));
  assert.deepEqual(steps, ["statement read findOneBy", "effect email src.service.Mailer.welcome", "statement write legacy-store.Client.put dynamic"]);
  const plain = scanSources({ "src/entities.ts": ENTITIES, "src/service.ts": USER_CODE });
  assert.deepEqual(flatSteps(plain.transactions[0]).map((s) => s.node), ["statement"]);
});

test("--settings: JSON object passed on the command line; bad settings exit 2 with one line", () => {
  const cli = path.join(__dirname, "..", "dist", "cli.js");
  const dir = makeApp({ "src/entities.ts": ENTITIES, "src/service.ts": USER_CODE });
  const ok = spawnSync(process.execPath, [cli, dir, "--settings", JSON.stringify({ effects: { "src.service.Mailer": "email" } })], { encoding: "utf-8" });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /"callee":"src.service.Mailer.welcome","category":"email"/);
  for (const [bad, reason] of [["{", /needs a JSON object/], ["[]", /needs a JSON object/], [`{"statements":{"x.y":"upsert"}}`, /statements\.x\.y must be one of read/]]) {
    const r = spawnSync(process.execPath, [cli, dir, "--settings", bad], { encoding: "utf-8" });
    assert.equal(r.status, 2);
    assert.match(r.stderr.split("\n")[0], reason);
  }
});
