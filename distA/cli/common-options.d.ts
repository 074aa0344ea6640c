/** The library's common options, from the global CLI arguments. */
import type { Logger } from '../core/logger.js';
import type { CommonOptions } from '../lib/common.js';
import type { CliContext } from './context.js';
import type { GlobalArgs } from './io.js';
export declare function commonOf(ctx: CliContext, args: GlobalArgs, apiKey: string, logger: Logger): CommonOptions;
