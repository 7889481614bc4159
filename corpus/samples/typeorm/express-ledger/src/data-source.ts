import { DataSource } from "typeorm";
import { Account } from "./entities/Account";
import { Transfer } from "./entities/Transfer";
import { LedgerEntry } from "./entities/LedgerEntry";
import { AuditEvent } from "./entities/AuditEvent";
import { Webhook } from "./entities/Webhook";

/** The application's single data source, imported wherever the database is needed. */
export const AppDataSource = new DataSource({
  type: "postgres",
  url: process.env.DATABASE_URL,
  entities: [Account, Transfer, LedgerEntry, AuditEvent, Webhook],
});

export const MAX_PAGE = 500;
