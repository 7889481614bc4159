// The external-effect catalog: calls that leave the database and the process (HTTP, mail,
// queues, caches, storage, files, subprocesses, sleeps). A row matches an *origin* (module
// and export path, see names.ts), so `import axios from "axios"; axios.post(...)`,
// `const s3 = new S3Client(...); s3.send(...)` and `this.http.post(...)` with
// `http: HttpService` all match without the libraries installed. In-process event emitters
// (`events`, @nestjs/event-emitter) are deliberately absent: they are not effects.

export interface EffectRule {
  /** npm module name, or "<global>" for globals such as fetch. */
  module: string;
  /** Methods (last segment of the call path) that are effects; "*" = any call of the module
   *  value itself or of any method. */
  methods: ReadonlyArray<string>;
  category: string;
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
  // Email
  { module: "nodemailer", methods: ["sendMail", "send"], category: "email" },
  { module: "@sendgrid/mail", methods: ["send", "sendMultiple"], category: "email" },
  { module: "@nestjs-modules/mailer", methods: ["sendMail"], category: "email" },
  { module: "@aws-sdk/client-ses", methods: ["send", "sendEmail", "sendRawEmail"], category: "email" },
  { module: "@aws-sdk/client-sesv2", methods: ["send", "sendEmail"], category: "email" },
  { module: "mailgun.js", methods: ["create", "send"], category: "email" },
  { module: "postmark", methods: ["sendEmail", "sendEmailWithTemplate"], category: "email" },
  // Queues and messaging
  { module: "bull", methods: ["add", "addBulk"], category: "queue" },
  { module: "bullmq", methods: ["add", "addBulk"], category: "queue" },
  { module: "@nestjs/bull", methods: ["add", "addBulk"], category: "queue" },
  { module: "@nestjs/bullmq", methods: ["add", "addBulk"], category: "queue" },
  { module: "amqplib", methods: ["publish", "sendToQueue"], category: "queue" },
  { module: "amqp-connection-manager", methods: ["publish", "sendToQueue"], category: "queue" },
  { module: "kafkajs", methods: ["send", "sendBatch"], category: "queue" },
  { module: "@aws-sdk/client-sqs", methods: ["send", "sendMessage", "sendMessageBatch"], category: "queue" },
  { module: "@aws-sdk/client-sns", methods: ["send", "publish"], category: "queue" },
  { module: "@google-cloud/pubsub", methods: ["publish", "publishMessage"], category: "queue" },
  { module: "@nestjs/microservices", methods: ["emit", "send"], category: "queue" },
  // Caches
  { module: "ioredis", methods: REDIS_WRITES_AND_READS, category: "cache" },
  { module: "redis", methods: REDIS_WRITES_AND_READS, category: "cache" },
  { module: "cache-manager", methods: ["get", "set", "del", "reset", "wrap", "mget", "mset"], category: "cache" },
  { module: "@nestjs/cache-manager", methods: ["get", "set", "del", "reset", "wrap"], category: "cache" },
  { module: "memcached", methods: ["get", "set", "del"], category: "cache" },
  // Object storage
  { module: "@aws-sdk/client-s3", methods: ["send", "putObject", "getObject", "deleteObject", "copyObject"], category: "storage" },
  { module: "@aws-sdk/lib-storage", methods: ["done"], category: "storage" },
  { module: "@google-cloud/storage", methods: ["save", "upload", "delete", "download", "createWriteStream"], category: "storage" },
  { module: "minio", methods: ["putObject", "fPutObject", "removeObject", "getObject", "copyObject"], category: "storage" },
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

/** Match a call's origin (module + path, "()"/"new" marking calls and constructions). */
export function matchEffect(module: string, path: string[]): EffectMatch | undefined {
  const segs = path.filter((p) => p !== "()" && p !== "new");
  const method = segs[segs.length - 1] ?? "default";
  if (NEVER_EFFECT_METHODS.has(method)) return undefined;
  const callee = [module === "<global>" ? "" : module, ...segs.filter((s) => s !== "default")].filter(Boolean).join(".");
  // @nestjs/common exports many things; only its (old) HttpService is a client.
  if (module === "@nestjs/common" && !segs.includes("HttpService")) return undefined;
  if (module === "aws-sdk") {
    for (const s of segs) if (AWS_V2_SERVICES[s] && segs.indexOf(s) < segs.length - 1) return { category: AWS_V2_SERVICES[s], callee };
    return undefined;
  }
  if (FACTORIES[module]?.includes(method)) return undefined;
  for (const r of EFFECT_RULES) {
    if (r.module !== module) continue;
    if (r.methods.includes("*") || r.methods.includes(method)) return { category: r.category, callee: callee || method };
  }
  return undefined;
}
