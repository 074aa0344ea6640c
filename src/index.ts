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
export {
  exportAnalytics,
  syncPipeline,
  readPipeline,
  DEFAULT_MAX_WAIT_MS,
  DEFAULT_PIPELINE_FILE,
  DEFAULT_REQUESTS_PER_HOUR,
  type AnalyticsHooks,
  type AnalyticsResult,
  type AnalyticsRunOptions,
  type ExportAnalyticsOptions,
  type SyncPipelineOptions,
} from './lib/analytics.js';
export {
  submitJobs,
  DEFAULT_JOBS_PER_HOUR,
  type JobFollowOptions,
  type PromptInput,
  type SubmitJobsOptions,
  type SubmitJobsResult,
} from './lib/jobs.js';
export { promptsFromQuery, type PromptsFromQuery, type PromptsFromQueryOptions } from './lib/from-query.js';
export { sendMessages, type MessageInput, type SendMessagesOptions, type SendMessagesResult } from './lib/messages.js';
export type { MessageEvent, MessagesSummary } from './jobs/run-messages.js';
export type { MessageRow } from './jobs/message-ledger.js';
export { openDatabase } from './lib/database.js';
export type { CommonOptions } from './lib/common.js';
export { startSandbox, SANDBOX_API_KEY, type Sandbox, type SandboxOptions, type SandboxJob, type FaultSpec } from './sandbox/server.js';
export { Database, DEFAULT_DB_PATH, StatementFailure, type OpenOptions, type QueryOptions, type QueryResult, type Executor, type Row, type Params } from './load/database.js';
export {
  DocpipeError,
  UsageError,
  HttpError,
  RateLimitError,
  DataError,
  DatabaseError,
  DatabaseBusyError,
  DatabasePathError,
  BudgetExhaustedError,
  InterruptedError,
  EXIT,
  type ExitCode,
} from './core/errors.js';
export { ManualClock, systemClock, type Clock } from './core/clock.js';
export { createLogger, type Logger, type LogFormat, type LoggerOptions } from './core/logger.js';
export { METRICS, type Metric } from './core/domain.js';
export { GRAINS, type Grain } from './extract/windows.js';
export type { ExportSummary, WindowEvent } from './extract/run-export.js';
export type { ThreadsSummary } from './extract/run-threads.js';
export type { BudgetOverrides, PipelineConfig } from './extract/pipeline-config.js';
export type { BudgetWait } from './lib/session.js';
export type { BatchEvent, BatchSummary } from './jobs/run-batch.js';
export type { LedgerRow } from './jobs/ledger.js';
export type { StopReason } from './core/outcome.js';
