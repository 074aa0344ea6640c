/**
 * docpipe as a library: the same runs as the CLI, with typed options and documented
 * defaults. Each resolves to the run's summary (its `exitCode` says how it ended, as the
 * CLI's would); none prints or exits. Bad options reject with a `UsageError`.
 *
 * ```ts
 * import { exportAnalytics } from 'docpipe';
 * const run = await exportAnalytics({ apiKey: process.env.DOCPIPE_API_KEY!, project: 'docs',
 *   metric: 'visitors', from: '2026-10-01', to: '2026-11-01' });
 * ```
 */
export { exportAnalytics, syncPipeline, readPipeline, DEFAULT_MAX_WAIT_MS, DEFAULT_PIPELINE_FILE, DEFAULT_REQUESTS_PER_HOUR, } from './lib/analytics.js';
export { submitJobs, DEFAULT_JOBS_PER_HOUR, } from './lib/jobs.js';
export { promptsFromQuery } from './lib/from-query.js';
export { sendMessages } from './lib/messages.js';
export { openDatabase } from './lib/database.js';
export { startSandbox, SANDBOX_API_KEY } from './sandbox/server.js';
export { Database, DEFAULT_DB_PATH } from './load/database.js';
export { DocpipeError, UsageError, HttpError, RateLimitError, DataError, DatabaseError, DatabaseBusyError, BudgetExhaustedError, InterruptedError, EXIT, } from './core/errors.js';
export { ManualClock, systemClock } from './core/clock.js';
export { createLogger } from './core/logger.js';
export { METRICS } from './core/domain.js';
export { GRAINS } from './extract/windows.js';
//# sourceMappingURL=index.js.map