import { MemorySessionCache, RedisSessionCache, SessionCache } from "./session-cache";

export interface SessionOptions {
  cache: SessionCache;
  ttlMs: number;
}

/** What the shop runs with unless a deployment overrides it. */
export const defaultSessionOptions: SessionOptions = {
  cache: new MemorySessionCache(),
  ttlMs: 3_600_000,
};

/** The option a multi-process deployment picks. */
export function sharedSessionOptions(): SessionOptions {
  return { ...defaultSessionOptions, cache: new RedisSessionCache() };
}
