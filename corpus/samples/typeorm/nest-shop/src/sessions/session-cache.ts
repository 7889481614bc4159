import Redis from "ioredis";

export interface CachedSession {
  token: string;
  customerId: string;
}

/** Where sessions are cached between requests: chosen in the shop's configuration. */
export interface SessionCache {
  put(session: CachedSession): Promise<void>;
  drop(token: string): Promise<void>;
}

/** The default: a map in the server's memory. */
export class MemorySessionCache implements SessionCache {
  private entries = new Map<string, CachedSession>();

  async put(session: CachedSession): Promise<void> {
    this.entries.set(session.token, session);
  }

  async drop(token: string): Promise<void> {
    this.entries.delete(token);
  }
}

/** For several server processes: a Redis server shared by all of them. */
export class RedisSessionCache implements SessionCache {
  private client = new Redis(process.env.REDIS_URL ?? "redis://localhost:6379");

  async put(session: CachedSession): Promise<void> {
    await this.client.set(`session:${session.token}`, JSON.stringify(session), "EX", 3600);
  }

  async drop(token: string): Promise<void> {
    await this.client.del(`session:${token}`);
  }
}
