/** The library's common options, from the global CLI arguments. */
import type { Logger } from '../core/logger.js';
import type { CommonOptions } from '../lib/common.js';
import type { CliContext } from './context.js';
import type { GlobalArgs } from './io.js';
import { apiKeySource } from './api-key.js';

export function commonOf(ctx: CliContext, args: GlobalArgs, apiKey: string, logger: Logger): CommonOptions {
  return {
    apiKey,
    baseUrl: args.baseUrl,
    db: args.db,
    lockTimeoutMs: args.lockTimeout * 1000,
    ...(args.maxRequests === undefined ? {} : { maxRequests: args.maxRequests }),
    logger,
    clock: ctx.io.clock,
    // A refused key's message names where this one came from.
    http: { ...ctx.http, keySource: apiKeySource(args) },
    ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
  };
}
