/**
 * Wires a run: the workspace (the database, held only while writing, and the spool beside
 * it), and the API session (the HTTP client, the request budget that every attempt passes
 * through, and the request journal that remembers every attempt from the moment it is made).
 * The library's runs and the CLI's commands share it.
 */
import { HttpClient, type HttpClientOptions } from '../api/http-client.js';
import { RequestBudget } from '../api/request-budget.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { FailureBreaker } from '../api/failure-breaker.js';
import type { OpenOptions } from '../load/database.js';
import { Store } from '../load/store.js';
import { RequestJournal } from '../spool/request-journal.js';
import { Spool } from '../spool/spool.js';
export interface Workspace {
    store: Store;
    spool: Spool;
    journal: RequestJournal;
}
/** The database and its spool for one run; `logger` hears when the file is held by another process. */
export declare function createWorkspace(args: {
    db: string;
    lockTimeout: number;
}, runId: string, logger: Logger, options?: OpenOptions): Workspace;
export interface SessionOptions {
    workspace: Workspace;
    /** The database was created by this run (Store.holdForStart): nothing to read of it for the budget yet. */
    newDatabase?: boolean;
    apiKey: string;
    baseUrl: string;
    /** Budget scope, e.g. `analytics` (per organization) or `agent:<project>`. */
    scope: string;
    perHour: number;
    maxRequests?: number | undefined;
    /** Longest wait for a slot before stopping with BudgetExhaustedError. @default 60_000 */
    maxWaitMs?: number;
    clock: Clock;
    /** Extra client settings (timeouts, backoff) for tests and benchmarks. */
    http?: Partial<Omit<HttpClientOptions, 'apiKey' | 'baseUrl' | 'clock' | 'beforeAttempt' | 'afterAttempt' | 'onRetry'>>;
    /** Requests that are not budgeted (polling) are still logged, under this scope. */
    budgeted?: (method: string) => boolean;
    /** Stops the run after failed attempts in a row (analytics: the budget is the organization's). */
    breaker?: FailureBreaker;
    /** Hears every retry and every wait for the budget. */
    logger?: Logger;
    /** Told before the run sleeps for the hourly budget. @default a log line */
    onWait?: (wait: BudgetWait) => void;
    /** What the user can do when the budget stops the run (see RequestBudgetOptions.hints). */
    budgetHints?: {
        hourly?: string;
        cap?: string;
    };
    /**
     * A project the key may be checked against (an unbudgeted GET of a job that does not
     * exist) before the run first waits for, or stops on, the hourly budget. Without it a
     * wrong key would only show once the budget allows a request, possibly never.
     */
    keyCheckProject?: string;
}
/** A wait for the hourly budget, as logged. */
export interface BudgetWait {
    scope: string;
    wait_ms: number;
    used_last_hour: number;
    per_hour: number;
    resumes_at: string;
}
export interface Session {
    client: HttpClient;
    budget: RequestBudget;
    stats: {
        retries: number;
        attempts: number;
    };
}
/** Pure: whether an answer shows the API accepted the key (it answered the request itself). */
export declare function provesKey(status: number): boolean;
export declare function createSession(options: SessionOptions): Session;
