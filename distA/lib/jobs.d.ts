import { type PromptEntry } from '../jobs/prompt-files.js';
import { type BatchEvent, type BatchSummary } from '../jobs/run-batch.js';
import { createWorkspace } from './session.js';
import { type CommonOptions, type ResolvedCommon } from './common.js';
/** Agent job creation and follow-up messages: 100 an hour per project (DESIGN §1). */
export declare const DEFAULT_JOBS_PER_HOUR = 100;
/** A prompt given in code: its text and, optionally, the id that keys it in the ledger. */
export interface PromptInput {
    prompt: string;
    /** @default `sha256:` and 16 hex digits of the prompt's text */
    id?: string;
}
export interface JobFollowOptions {
    /** First poll interval in ms; it backs off from there to 60 s. @default 5_000 */
    pollIntervalMs?: number;
    /** How long to follow a job before it is recorded `timed_out`, in ms. @default 3_600_000 */
    timeoutMs?: number;
    /**
     * Job creations and messages per hour for the project (the API's limit); a batch waits for
     * the budget rather than stopping. @default 100
     */
    jobsPerHour?: number;
}
export interface SubmitJobsOptions extends CommonOptions, JobFollowOptions {
    project: string;
    /** A prompt file (`.txt`, `.jsonl` or `.csv`), or the prompts themselves. */
    prompts: string | readonly PromptInput[];
    /** Recorded as each prompt's `source_file`. @default the file's path, or `'library'` */
    source?: string;
    /** Jobs in flight at once. @default 3 */
    concurrency?: number;
    /** Submit again prompts whose earlier submission has an unknown outcome. @default false */
    resubmitUnknown?: boolean;
    /** Told as each prompt is skipped, submitted, polled and finished. */
    onEvent?: (event: BatchEvent) => void;
}
export interface SubmitJobsResult extends BatchSummary {
    runId: string;
    /** Duplicate prompts that were dropped, one line each. */
    warnings: string[];
}
/**
 * The prompts of a list given in code, keyed and deduplicated like a prompt file (`warnings`:
 * the exact duplicates dropped; a key reused for another prompt is a UsageError).
 */
export declare function promptEntries(prompts: readonly PromptInput[], label?: string): {
    entries: PromptEntry[];
    warnings: string[];
};
/** The job options, checked and with their defaults. */
export declare function resolveFollow(options: JobFollowOptions & {
    concurrency?: number;
}): {
    concurrency: number;
    pollIntervalMs: number;
    timeoutMs: number;
    jobsPerHour: number;
};
/**
 * The API session of a project's agent jobs: job creation and messages share the project's
 * hourly budget (scope `agent:<project>`); polling is not budgeted (the API documents no
 * limit) but is logged.
 */
export declare function agentSession(common: ResolvedCommon, workspace: ReturnType<typeof createWorkspace>, projectId: string, jobsPerHour: number): import("./session.js").Session;
export interface JobBatchInput {
    projectId: string;
    entries: readonly PromptEntry[];
    source: string;
    /** Recorded in `runs.command`. */
    command: string;
    concurrency: number;
    pollIntervalMs: number;
    timeoutMs: number;
    jobsPerHour: number;
    resubmitUnknown: boolean;
    onEvent?: (event: BatchEvent) => void;
}
/** Submits and follows a batch of entries, recording the run: what `submitJobs` and `jobs from-query` share. */
export declare function runJobBatch(common: ResolvedCommon, input: JobBatchInput): Promise<SubmitJobsResult>;
/** One project id: jobs belong to one project. */
export declare function checkProject(project: unknown): string;
/**
 * Submits each prompt once and follows each job to its end. Prompts already submitted (in
 * this database's ledger) are not submitted again; unfinished jobs are polled again. Resolves
 * to the batch's outcome, one ledger row per prompt, and `exitCode` (0 every job ended, 1 a
 * job is `unknown`, `timed_out` or lost, 75 the request cap stopped submissions, 130
 * interrupted).
 */
export declare function submitJobs(options: SubmitJobsOptions): Promise<SubmitJobsResult>;
