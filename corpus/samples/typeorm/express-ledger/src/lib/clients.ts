import Redis from "ioredis";
import { Kafka } from "kafkajs";
import * as amqp from "amqplib";
import { S3Client } from "@aws-sdk/client-s3";

export const redis = new Redis(process.env.REDIS_URL ?? "redis://localhost:6379");
export const kafka = new Kafka({ clientId: "ledger", brokers: ["kafka:9092"] });
export const producer = kafka.producer();
export const s3 = new S3Client({ region: "eu-west-1" });

let channel: amqp.Channel | undefined;
export async function amqpChannel(): Promise<amqp.Channel> {
  if (!channel) {
    const conn = await amqp.connect(process.env.AMQP_URL ?? "amqp://localhost");
    channel = await conn.createChannel();
  }
  return channel;
}
