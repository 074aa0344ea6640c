import { type Metric } from '../core/domain.js';
import { type ThreadsSummary } from '../extract/run-threads.js';
import { type PipelineConfig } from '../extract/pipeline-config.js';
import { type ExportSummary, type WindowEvent } from '../extract/run-export.js';
import { type Grain } from '../extract/windows.js';
import { type BudgetWait } from './session.js';
import { type CommonOptions } from './common.js';
/** The analytics budget of an organization (DESIGN §1). */
export declare const DEFAULT_REQUESTS_PER_HOUR = 100;
/** Longest wait for the hourly budget unless told otherwise: longer stops the run (exit code 75). */
export declare const DEFAULT_MAX_WAIT_MS = 60000;
export interface AnalyticsHooks {
    /** Told how many windows will be fetched, before the first request. */
    onPlan?: (plan: {
        toFetch: number;
        skipped: number;
        fromSpool: number;
    }) => void;
    /** Told as each window is loaded, fails, or is skipped because another process walks it. */
    onWindow?: (event: WindowEvent) => void;
    /** Told before the run sleeps for the hourly budget. @default a log line */
    onWait?: (wait: BudgetWait) => void;
    /** What the user can do, appended to the message of a stop on the budget (the CLI names its options). */
    budgetHints?: {
        hourly?: string;
        cap?: string;
    };
}
export interface AnalyticsRunOptions extends CommonOptions, AnalyticsHooks {
    /** The organization's analytics budget. @default 100 (sync: the pipeline's `requestsPerHour`) */
    requestsPerHour?: number;
    /**
     * Longest single wait for the hourly budget; a longer one stops the run with exit code 75
     * and the work left for the next run. `Infinity` waits as long as it takes. @default 60_000
     */
    maxWaitMs?: number;
}
export interface ExportAnalyticsOptions extends AnalyticsRunOptions {
    /** One project id or several. */
    project: string | readonly string[];
    metric: Metric;
    /** First day, `YYYY-MM-DD` (UTC). */
    from: string;
    /** End day, exclusive like the API. */
    to: string;
    /** @default 'day' */
    window?: Grain;
    /** Fetch windows even if loaded and settled. @default false */
    refresh?: boolean;
    /** A window is settled once fetched this many days after it ended. @default 2 */
    lookbackDays?: number;
    /**
     * `assistant` only: also fetch the transcript of every thread the range's conversations
     * reference, into `assistant_messages` (one request per thread). @default false
     */
    threads?: boolean;
}
export interface SyncPipelineOptions extends AnalyticsRunOptions {
    /** A pipeline file (like `pipelines/nightly.json`), or its contents. @default 'pipelines/nightly.json' */
    pipeline?: string | Record<string, unknown>;
    /** Replaces the pipeline's project list. @default the pipeline's */
    projects?: readonly string[];
}
/** A run's summary, as the CLI prints it on its JSON summary line. */
export interface AnalyticsResult extends ExportSummary {
    command: string;
    runId: string;
    retries: number;
    /** With `threads`: how the thread transcripts went. */
    threads?: ThreadsSummary;
}
/**
 * Exports one metric of one or more projects for a date range (`to` exclusive) into the
 * database, skipping windows already loaded and settled unless `refresh`. Resolves to the
 * run's summary, whose `exitCode` says how it ended (0 done, 1 failed windows, 75 stopped on
 * the budget with work left, 130 interrupted). Bad options reject with a `UsageError`.
 */
export declare function exportAnalytics(options: ExportAnalyticsOptions): Promise<AnalyticsResult>;
/** The pipeline file `sync` reads when none is named. */
export declare const DEFAULT_PIPELINE_FILE = "pipelines/nightly.json";
/** Reads and checks a pipeline file; every problem at once in one UsageError. */
export declare function readPipeline(source: string | Record<string, unknown>, onWarning?: (warning: string) => void): PipelineConfig;
/**
 * The nightly incremental run of a pipeline: every closed window from `start` on that is not
 * yet settled, most recent first, within the pipeline's `maxRequestsPerRun` (or
 * `maxRequests`). Resolves to the run's summary (`exitCode` 75: stopped on the budget, the
 * next run carries on).
 */
export declare function syncPipeline(options: SyncPipelineOptions): Promise<AnalyticsResult>;
