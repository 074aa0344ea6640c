/** The library's common options, from the global CLI arguments. */
import type { Logger } from '../core/logger.js';
import type { CommonOptions } from '../lib/common.js';
import type { CliContext } from './context.js';
import type { GlobalArgs } from './io.js';
import { apiKeySource } from './api-key.js';
import { checkBaseUrl } from '../api/http-client.js';
import { CLI_BASE_URL_SOURCE } from '../core/errors.js';

export function commonOf(ctx: CliContext, args: GlobalArgs, apiKey: string, logger: Logger): CommonOptions {
  // Checked here, so that a bad URL is named by the option typed (the library names its own).
  checkBaseUrl(args.baseUrl);
  return {
    apiKey,
    baseUrl: args.baseUrl,
    db: args.db,
    lockTimeoutMs: args.lockTimeout * 1000,
    ...(args.maxRequests === undefined ? {} : { maxRequests: args.maxRequests }),
    logger,
    clock: ctx.io.clock,
    // A refused key's message names where this one came from.
    http: { ...ctx.http, keySource: apiKeySource(args), baseUrlSource: CLI_BASE_URL_SOURCE },
    ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
  };
}
