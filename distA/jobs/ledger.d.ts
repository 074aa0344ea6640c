/**
 * The job ledger (`agent_jobs`): one row per (project, prompt key). A row is written as
 * `pending` when its turn comes, and marked as being posted (`post_started_at`) only just
 * before the POST goes out, after any wait for the budget; so a crash leaves a trace, and
 * only a prompt that may have reached the server counts as `unknown`. Every response then
 * updates the row. Each write is one statement, committed before its call returns, in a short
 * write (the database file is held only for it, so a batch that follows jobs for an hour leaves
 * the file to readers between polls), so the ledger is consistent after a crash. Writes that
 * arrive while another is committing go in together in the next short write (Store.run).
 */
import { type AgentJob } from '../api/schemas.js';
import type { Executor } from '../load/database.js';
import type { Store } from '../load/store.js';
/** Statuses docpipe sets itself, beside the API's own. */
export declare const LOCAL_STATUSES: readonly ["pending", "unknown", "timed_out", "rejected"];
export type LocalStatus = (typeof LOCAL_STATUSES)[number];
export interface LedgerRow {
    projectId: string;
    promptKey: string;
    prompt: string;
    jobId: string | null;
    status: string;
    model: string | null;
    repository: string | null;
    ref: string | null;
    prLink: string | null;
    createdAt: string | null;
    archivedAt: string | null;
    submittedAt: string | null;
    finishedAt: string | null;
    error: string | null;
    /** Data-quality flags, comma-separated (`pr_link_not_url`). */
    flags: string | null;
    sourceFile: string | null;
    attempts: number;
    polls: number;
    /** A POST was started and not provably without effect. */
    postStarted: boolean;
    /** Follow-up messages sent to the job (`jobs message`); read by `list` only. */
    messages?: number;
}
/** A status after which nothing more will happen to the row without the user asking. */
export declare function isFinalStatus(status: string): boolean;
export interface LedgerFilter {
    status?: string;
    projectId?: string;
}
/** The statuses the ledger holds, each once. */
export declare function readStatuses(db: Executor): Promise<string[]>;
/** The ledger's rows, oldest submission first, each with the follow-up messages its job was sent. */
export declare function readLedger(db: Executor, filter?: LedgerFilter): Promise<LedgerRow[]>;
export declare class JobLedger {
    private readonly store;
    private readonly runId;
    constructor(store: Store, runId: string);
    get(projectId: string, promptKey: string): Promise<LedgerRow | undefined>;
    /** The statuses the ledger holds, each once. */
    statuses(): Promise<string[]>;
    list(filter?: LedgerFilter): Promise<LedgerRow[]>;
    /** Every row of a project by prompt key: the one read a batch (or a dry run) needs. */
    byKey(projectId: string): Promise<Map<string, LedgerRow>>;
    /**
     * The prompt's turn has come: `pending`, not yet posted (a prompt that then waits for the
     * hourly budget and is killed there is still provably not submitted).
     */
    markPending(projectId: string, promptKey: string, prompt: string, sourceFile: string, now: number): Promise<void>;
    /** Just before a POST attempt goes out: from here its outcome is unknown until the answer. */
    markPosting(projectId: string, promptKey: string, now: number): Promise<void>;
    /** An attempt provably created nothing (429, 503): the prompt is not being posted any more. */
    clearPosting(projectId: string, promptKey: string, now: number): Promise<void>;
    /**
     * The API answered with a job (after POST or GET): copy its fields. The status is kept
     * verbatim, known or not. A null prLink never erases a stored one; a prLink that is not a
     * URL is flagged instead of stored. The API's reason for a failure, if any, goes to `error`.
     */
    recordJob(projectId: string, promptKey: string, job: AgentJob, now: number, opts?: {
        submitted?: boolean;
        polled?: boolean;
    }): Promise<void>;
    /**
     * A local outcome (`unknown`, `rejected`, `timed_out`) or an error kept beside the status.
     * A local status replaces only a local one or `active`: a status the API gave that docpipe
     * does not know (`cancelled`) is never overwritten, the outcome goes to `error` beside it.
     */
    recordOutcome(projectId: string, promptKey: string, outcome: {
        status?: LocalStatus;
        error: string | null;
        submitted?: boolean;
        nothingCreated?: boolean;
    }, now: number): Promise<void>;
}
