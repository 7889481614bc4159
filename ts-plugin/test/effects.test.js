// External effects inside transactions, by category; in-process work is not an effect.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { onlyTx, flatSteps, inTx } = require("./helpers");

const effects = (body, imports) => flatSteps(onlyTx(inTx(body, imports)).tx).filter((s) => s.node === "effect").map((e) => `${e.category} ${e.callee}`);

test("HTTP clients", () => {
  assert.deepEqual(effects(`
      await fetch("https://x");
      await axios.post("https://x", {});
      await axios({ url: "https://x" });
      await got("https://x");
      await nodeFetch("https://x");
      await request("https://x");
      https.request("https://x");
      await firstValueFrom(this.http.get("https://x"));`,
  `import axios from "axios"; import got from "got"; import nodeFetch from "node-fetch"; import { request } from "undici"; import * as https from "https";
import { HttpService } from "@nestjs/axios"; import { firstValueFrom } from "rxjs";
declare const self: { http: HttpService };`).length, 7);
});

test("categories: email, queue, cache, storage, file, subprocess, sleep", () => {
  const got = effects(`
      await mailer.sendMail({});
      await sgMail.send({});
      await queue.add("job", {});
      await channel.sendToQueue("q", Buffer.from(""));
      await producer.send({ topic: "t", messages: [] });
      await sqs.send(new SendMessageCommand({} as any));
      await redis.set("k", "v");
      await cache.del("k");
      await s3.send(new PutObjectCommand({} as any));
      await new AWS.S3().putObject({} as any).promise();
      await fs.writeFile("/tmp/x", "");
      fsSync.appendFileSync("/tmp/x", "");
      execSync("ls");
      await new Promise((r) => setTimeout(r, 10));
      await sleep(5);
      const stripeClient = new Stripe("k");
      await stripeClient.charges.create({});`,
  `import * as nodemailer from "nodemailer"; import sgMail from "@sendgrid/mail"; import { Queue } from "bullmq";
import { Channel } from "amqplib"; import { Producer } from "kafkajs"; import { SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs";
import Redis from "ioredis"; import { Cache } from "cache-manager"; import { S3Client, PutObjectCommand } from "@aws-sdk/client-s3";
import * as AWS from "aws-sdk"; import { promises as fs } from "fs"; import * as fsSync from "fs"; import { execSync } from "child_process";
import { setTimeout as sleep } from "timers/promises"; import Stripe from "stripe";
const mailer = nodemailer.createTransport({}); declare const queue: Queue; declare const channel: Channel; declare const producer: Producer;
const sqs = new SQSClient({}); const redis = new Redis(); declare const cache: Cache; const s3 = new S3Client({});`);
  assert.deepEqual(got.map((g) => g.split(" ")[0]), [
    "email", "email", "queue", "queue", "queue", "queue", "cache", "cache", "storage", "storage", "file", "file", "subprocess", "sleep", "sleep", "http",
  ]);
});

test("not effects: event emitters, timers that do not wait, logging, pure helpers", () => {
  assert.deepEqual(effects(`
      emitter.emit("saved", id);
      this.events.emit("x");
      setTimeout(() => undefined, 10);
      console.log("x");
      JSON.stringify({ id });
      const stripeClient = new Stripe("k");
      stripeClient.webhooks.constructEvent("", "", "");
      axios.isAxiosError(new Error());
      await em.findOneBy(User, { id });`,
  `import { EventEmitter } from "events"; import { EventEmitter2 } from "@nestjs/event-emitter"; import axios from "axios"; import Stripe from "stripe";
const emitter = new EventEmitter(); declare const self: { events: EventEmitter2 };`), []);
});
