import type { KnownWindow } from '../extract/backlog.js';
import type { Executor } from './database.js';
export declare function readKnownWindows(db: Executor): Promise<KnownWindow[]>;
export interface LastRun {
    runId: string;
    command: string | null;
    startedAt: string | null;
    finishedAt: string | null;
    /** As recorded; `running` whose process is gone reads `crashed`. */
    status: string | null;
    exitCode: number | null;
    summary: unknown;
}
/** The newest `export` or `sync` run. */
export declare function readLastAnalyticsRun(db: Executor): Promise<LastRun | null>;
/** Threads the loaded assistant conversations reference, and how many are fetched (`--threads`). */
export declare function readThreadBacklog(db: Executor): Promise<{
    referenced: number;
    fetched: number;
}>;
