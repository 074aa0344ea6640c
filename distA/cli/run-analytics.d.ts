/** What `export` and `sync` share: open the database, run the export, record and report the run. */
import type { Argv } from 'yargs';
import { type ExitCode } from '../core/errors.js';
import { DEFAULT_REQUESTS_PER_HOUR, type AnalyticsHooks, type AnalyticsResult } from '../lib/analytics.js';
import type { CommonOptions } from '../lib/common.js';
import type { CliContext } from './context.js';
import { type GlobalArgs } from './io.js';
export { DEFAULT_REQUESTS_PER_HOUR };
/** The options `export` and `sync` share for day-long backfills. */
export declare function waitOptions<T>(yargs: Argv<T>): Argv<T & {
    wait: boolean;
} & {
    "max-wait": string | undefined;
}>;
/** The longest budget wait a run accepts, from `--wait` and `--max-wait`. */
export declare function maxWaitMsOf(args: {
    wait: boolean;
    maxWait?: string | undefined;
}): number;
export declare function formatSummary(s: AnalyticsResult): string;
/** Runs `exportAnalytics` or `syncPipeline` for a command: progress on stderr, the summary on stdout. */
export declare function runAnalytics(ctx: CliContext, args: GlobalArgs, 
/** For the progress estimate: the budget the run paces itself to. */
perHour: number, run: (common: CommonOptions & AnalyticsHooks) => Promise<AnalyticsResult>): Promise<ExitCode>;
