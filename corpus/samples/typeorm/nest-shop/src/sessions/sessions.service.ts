import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, EntityManager, In } from "typeorm";
import { Customer } from "@shop/customers/customer.entity";
import { Session } from "./session.entity";
import { defaultSessionOptions, SessionOptions } from "./session-options";

/** Gives up on a slow cache without failing the request. */
function withTimeout<T>(work: Promise<T>, ms = 500): Promise<T | undefined> {
  return Promise.race([work, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
}

/** Finds a row by its key or throws; a missing row reads as `undefined`, not `null`. */
async function sessionOrThrow(em: EntityManager, id: string): Promise<Session> {
  const session = await em.getRepository(Session).findOne({ where: { id } }).then((found) => found ?? undefined);
  if (!session) throw new Error(`no session ${id}`);
  return session;
}

@Injectable()
export class SessionsService {
  private options: SessionOptions = defaultSessionOptions;

  constructor(@InjectDataSource() private dataSource: DataSource) {}

  /** The new session is cached (whichever cache the options name) before the transaction ends. */
  async signIn(customerId: string, token: string) {
    return this.dataSource.transaction(async (em) => {
      const customer = await em.findOneByOrFail(Customer, { id: customerId });
      const session = await em.save(em.create(Session, { token, customer, expiresAt: new Date(Date.now() + this.options.ttlMs) }));
      await withTimeout(this.options.cache.put({ token: session.token, customerId: customer.id }));
      return session;
    });
  }

  /** Loads the session by its key (or throws) and removes that row: both keyed by the input id. */
  async revoke(sessionId: string) {
    await this.dataSource.transaction(async (em) => {
      const session = await sessionOrThrow(em, sessionId);
      await em.remove(session);
    });
  }

  /** The request's session is replaced by the row found by token, which is then saved. */
  async verify(request: { session: Partial<Session> }) {
    await this.dataSource.transaction(async (em) => {
      const found = await em.findOneBy(Session, { token: request.session.token });
      if (!found) throw new Error("unknown token");
      request.session = found;
      request.session.verified = true;
      await em.save(Session, request.session);
    });
  }

  /** Signs out every session used on a device: found through the sessions' device list. */
  async forgetDevice(deviceId: string) {
    await this.dataSource.transaction(async (em) => {
      const sessions = await em.find(Session, { where: { devices: { id: deviceId } } });
      await em.delete(Session, { id: In(sessions.map((s) => s.id)) });
    });
  }
}
