// The external-effect catalog: calls that leave the database and the process (HTTP, mail,
// queues, caches, storage, files, subprocesses, sleeps). A row matches an *origin* (module
// and export path, see names.ts), so `import axios from "axios"; axios.post(...)`,
// `const s3 = new S3Client(...); s3.send(...)` and `this.http.post(...)` with
// `http: HttpService` all match without the libraries installed. In-process event emitters
// (`events`, @nestjs/event-emitter) are deliberately absent: they are not effects.

import { lookupCallee } from "../settings";

export interface EffectRule {
  /** npm module name, or "<global>" for globals such as fetch; a trailing "*" matches every
   *  module with that prefix (`@google-cloud/*`). */
  module: string;
  /** Methods (last segment of the call path) that are effects; "*" = any call of the module
   *  value itself or of any method. */
  methods: ReadonlyArray<string>;
  category: string;
  /** methods that only reach an object of the client (no request) */
  except?: ReadonlyArray<string>;
}

const HTTP_VERBS = ["get", "post", "put", "patch", "delete", "head", "options", "request", "fetch"];
const REDIS_WRITES_AND_READS = [
  "get", "set", "setex", "setnx", "del", "unlink", "incr", "incrby", "decr", "decrby", "expire", "hget", "hset",
  "hgetall", "hdel", "hincrby", "lpush", "rpush", "lpop", "rpop", "sadd", "srem", "smembers", "zadd", "zrem",
  "zrange", "mget", "mset", "publish", "eval", "evalsha", "exists", "getdel", "getex", "xadd", "multi", "exec",
  "sendCommand", "json",
];
const FS_WRITES = [
  "writeFile", "writeFileSync", "appendFile", "appendFileSync", "mkdir", "mkdirSync", "unlink", "unlinkSync",
  "rename", "renameSync", "rm", "rmSync", "rmdir", "rmdirSync", "copyFile", "copyFileSync", "createWriteStream",
  "truncate", "truncateSync", "symlink", "symlinkSync", "chmod", "chmodSync", "cp", "cpSync",
];

export const EFFECT_RULES: ReadonlyArray<EffectRule> = [
  // HTTP clients
  { module: "<global>", methods: ["fetch"], category: "http" },
  { module: "axios", methods: ["*"], category: "http" },
  { module: "got", methods: ["*"], category: "http" },
  { module: "node-fetch", methods: ["*"], category: "http" },
  { module: "undici", methods: ["fetch", "request", "stream", "pipeline"], category: "http" },
  { module: "superagent", methods: ["*"], category: "http" },
  { module: "request", methods: ["*"], category: "http" },
  { module: "request-promise", methods: ["*"], category: "http" },
  { module: "http", methods: ["request", "get"], category: "http" },
  { module: "https", methods: ["request", "get"], category: "http" },
  { module: "node:http", methods: ["request", "get"], category: "http" },
  { module: "node:https", methods: ["request", "get"], category: "http" },
  { module: "@nestjs/axios", methods: HTTP_VERBS, category: "http" },
  { module: "@nestjs/common", methods: HTTP_VERBS.filter((m) => m !== "delete"), category: "http" },
  // Third-party APIs (HTTP underneath)
  { module: "stripe", methods: ["*"], category: "http" },
  { module: "twilio", methods: ["*"], category: "http" },
  { module: "@slack/web-api", methods: ["*"], category: "http" },
  { module: "@slack/webhook", methods: ["*"], category: "http" },
  { module: "@slack/bolt", methods: ["postMessage", "update", "send"], category: "http" },
  { module: "openai", methods: ["*"], category: "http" },
  { module: "@anthropic-ai/sdk", methods: ["*"], category: "http" },
  { module: "firebase-admin", methods: ["send", "sendMulticast", "sendEach", "sendToDevice", "set", "update", "add", "delete", "createUser", "updateUser", "deleteUser"], category: "http" },
  { module: "ky", methods: ["*"], category: "http" },
  { module: "needle", methods: ["*"], category: "http" },
  // Email
  { module: "nodemailer", methods: ["sendMail", "send"], category: "email" },
  { module: "@sendgrid/mail", methods: ["send", "sendMultiple"], category: "email" },
  { module: "@nestjs-modules/mailer", methods: ["sendMail"], category: "email" },
  { module: "mailgun.js", methods: ["create", "send"], category: "email" },
  { module: "postmark", methods: ["sendEmail", "sendEmailWithTemplate", "sendEmailBatch"], category: "email" },
  { module: "resend", methods: ["send", "create"], category: "email" },
  { module: "email-templates", methods: ["send"], category: "email" },
  { module: "@mailchimp/mailchimp_transactional", methods: ["send", "sendTemplate"], category: "email" },
  { module: "mailersend", methods: ["send"], category: "email" },
  { module: "@getbrevo/brevo", methods: ["sendTransacEmail"], category: "email" },
  // Queues and messaging
  { module: "bull", methods: ["add", "addBulk"], category: "queue" },
  { module: "bullmq", methods: ["add", "addBulk"], category: "queue" },
  { module: "@nestjs/bull", methods: ["add", "addBulk"], category: "queue" },
  { module: "@nestjs/bullmq", methods: ["add", "addBulk"], category: "queue" },
  { module: "amqplib", methods: ["publish", "sendToQueue"], category: "queue" },
  { module: "amqp-connection-manager", methods: ["publish", "sendToQueue"], category: "queue" },
  { module: "kafkajs", methods: ["send", "sendBatch"], category: "queue" },
  { module: "@google-cloud/pubsub", methods: ["publish", "publishMessage"], category: "queue" },
  { module: "@google-cloud/tasks", methods: ["createTask", "deleteTask"], category: "queue" },
  { module: "@nestjs/microservices", methods: ["emit", "send"], category: "queue" },
  // Caches
  { module: "ioredis", methods: REDIS_WRITES_AND_READS, category: "cache" },
  { module: "redis", methods: REDIS_WRITES_AND_READS, category: "cache" },
  { module: "cache-manager", methods: ["get", "set", "del", "reset", "wrap", "mget", "mset"], category: "cache" },
  { module: "@nestjs/cache-manager", methods: ["get", "set", "del", "reset", "wrap"], category: "cache" },
  { module: "memcached", methods: ["get", "set", "del"], category: "cache" },
  { module: "@redis/client", methods: REDIS_WRITES_AND_READS, category: "cache" },
  { module: "@upstash/redis", methods: REDIS_WRITES_AND_READS, category: "cache" },
  // Object storage
  { module: "@aws-sdk/lib-storage", methods: ["done"], category: "storage" },
  { module: "@google-cloud/storage", methods: ["save", "upload", "delete", "download", "createWriteStream"], category: "storage" },
  { module: "minio", methods: ["*"], category: "storage" },
  { module: "@aws-sdk/s3-request-presigner", methods: ["getSignedUrl"], category: "storage" },
  { module: "@aws-sdk/s3-presigned-post", methods: ["createPresignedPost"], category: "storage" },
  { module: "@aws-sdk/lib-dynamodb", methods: ["send"], category: "storage" },
  { module: "@azure/storage-blob", methods: ["upload", "uploadData", "uploadFile", "delete", "deleteIfExists", "download", "beginCopyFromURL", "createIfNotExists"], category: "storage" },
  // Any other Google Cloud client: every call but configuration (NEVER_EFFECT_METHODS)
  { module: "@google-cloud/*", methods: ["*"], category: "http", except: ["bucket", "file", "topic", "subscription", "dataset", "table", "collection", "doc", "queuePath", "job"] },
  // Files
  { module: "fs", methods: FS_WRITES, category: "file" },
  { module: "node:fs", methods: FS_WRITES, category: "file" },
  { module: "fs/promises", methods: FS_WRITES, category: "file" },
  { module: "node:fs/promises", methods: FS_WRITES, category: "file" },
  { module: "fs-extra", methods: [...FS_WRITES, "outputFile", "outputJson", "writeJson", "remove", "move", "copy"], category: "file" },
  // Subprocesses
  { module: "child_process", methods: ["exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync", "fork"], category: "subprocess" },
  { module: "node:child_process", methods: ["exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync", "fork"], category: "subprocess" },
  { module: "execa", methods: ["*"], category: "subprocess" },
  // Sleeps (setTimeout inside `new Promise` is handled by the walker)
  { module: "timers/promises", methods: ["setTimeout", "setImmediate"], category: "sleep" },
  { module: "node:timers/promises", methods: ["setTimeout", "setImmediate"], category: "sleep" },
  // User input
  { module: "readline", methods: ["question"], category: "input" },
  { module: "node:readline", methods: ["question"], category: "input" },
  { module: "readline/promises", methods: ["question"], category: "input" },
];

/** AWS SDK v2: `new AWS.S3().putObject(...)`; the service name picks the category. */
export const AWS_V2_SERVICES: Readonly<Record<string, string>> = {
  S3: "storage", SQS: "queue", SNS: "queue", SES: "email", Lambda: "http", DynamoDB: "storage", Kinesis: "queue",
  EventBridge: "queue", SecretsManager: "http", KMS: "http",
};

/** AWS SDK v3: `@aws-sdk/client-<service>`; every command sent (`client.send(new XCommand())`)
 *  and every method of the aggregated client (`new S3({}).putObject()`) calls the service. The
 *  service picks the category; services not listed are `http`. */
export const AWS_V3_SERVICES: Readonly<Record<string, string>> = {
  s3: "storage", "s3-control": "storage", dynamodb: "storage", "dynamodb-streams": "storage", efs: "storage", glacier: "storage",
  sqs: "queue", sns: "queue", kinesis: "queue", firehose: "queue", eventbridge: "queue", sfn: "queue", mq: "queue", kafka: "queue",
  ses: "email", sesv2: "email", pinpoint: "email", "pinpoint-email": "email", "elasticache": "cache",
};

/** Classes of aws-sdk v2 that are not service clients. */
const AWS_V2_NOT_SERVICES = new Set(["Config", "Credentials", "Endpoint", "CredentialProviderChain", "EnvironmentCredentials", "SharedIniFileCredentials", "Request", "Response", "Service"]);

/** Methods that are never effects even on an effect module's objects (configuration, promise plumbing). */
export const NEVER_EFFECT_METHODS = new Set([
  "then", "catch", "finally", "promise", "pipe", "toPromise", "defaults", "setApiKey", "config", "on", "once",
  "createTransport", "createClient", "connect", "duplicate", "quit", "disconnect", "interceptors", "use",
  "isAxiosError", "isCancel", "CancelToken", "constructEvent", "generateTestHeaderString", "validateRequest",
]);

/** Factory methods that build a client rather than call out (`axios.create()`). */
const FACTORIES: Readonly<Record<string, ReadonlyArray<string>>> = {
  axios: ["create"], got: ["extend"], "node-fetch": [], superagent: ["agent"],
};

export interface EffectMatch {
  category: string;
  callee: string;
}

/** The name of a library call in effect steps and user catalogs: `axios.post`,
 *  `@aws-sdk/client-s3.S3Client.send`, `fetch`. */
export function calleeOf(module: string, path: string[]): string {
  const segs = path.filter((p) => p !== "()" && p !== "new");
  const name = [module === "<global>" ? "" : module, ...segs.filter((s) => s !== "default")].filter(Boolean).join(".");
  return name || segs[segs.length - 1] || module;
}

/** Match a call's origin (module + path, "()"/"new" marking calls and constructions). */
export function matchEffect(module: string, path: string[], user?: ReadonlyMap<string, string>): EffectMatch | undefined {
  const segs = path.filter((p) => p !== "()" && p !== "new");
  const method = segs[segs.length - 1] ?? "default";
  const callee = calleeOf(module, path);
  const own = user && lookupCallee(user, callee);
  if (own) return { category: own, callee };
  if (NEVER_EFFECT_METHODS.has(method)) return undefined;
  // @nestjs/common exports many things; only its (old) HttpService is a client.
  if (module === "@nestjs/common" && !segs.includes("HttpService")) return undefined;
  if (module === "aws-sdk" || module.startsWith("aws-sdk/")) {
    // `new AWS.S3().putObject()`, `new SES().sendEmail()`: a method of a service client (a
    // capitalised class; `AWS.config.update()` is configuration)
    const i = segs.findIndex((s) => /^[A-Z]/.test(s) && !AWS_V2_NOT_SERVICES.has(s));
    if (i >= 0 && i < segs.length - 1) return { category: AWS_V2_SERVICES[segs[i]] ?? "http", callee };
    return undefined;
  }
  if (FACTORIES[module]?.includes(method)) return undefined;
  const aws = /^@aws-sdk\/client-(.+)$/.exec(module);
  if (aws) {
    // constructors (clients, commands) are not calls; every call is a request but the plumbing
    if (segs.includes("middlewareStack") || method === "destroy") return undefined;
    return { category: AWS_V3_SERVICES[aws[1]] ?? "http", callee };
  }
  for (const r of EFFECT_RULES) {
    if (!(r.module === module || (r.module.endsWith("*") && module.startsWith(r.module.slice(0, -1))))) continue;
    if (r.except?.includes(method)) continue;
    if (r.methods.includes("*") || r.methods.includes(method)) return { category: r.category, callee: callee || method };
  }
  return undefined;
}
