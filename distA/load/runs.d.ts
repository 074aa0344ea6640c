import type { Logger } from '../core/logger.js';
import type { Executor } from './database.js';
export declare function newRunId(now: number): string;
/**
 * Records a run as `running`, with the process that runs it (so a crash can be told later).
 * First, runs left `running` by a process that is gone (the rule `docpipe doctor` applies)
 * are marked `crashed`; their ids are returned.
 */
export declare function startRun(tx: Executor, runId: string, command: string, now: number): Promise<string[]>;
/** One log line for the runs `startRun` found crashed. */
export declare function logCrashedRuns(logger: Logger, runIds: readonly string[]): void;
export declare function finishRun(tx: Executor, runId: string, outcome: {
    status: string;
    exitCode: number;
    summary: unknown;
}, now: number): Promise<void>;
/**
 * The runs table's `pid, host` columns for a SELECT: a database of release 0.1.0 opened
 * read-only is not migrated, and its runs have neither (NULLs stand in).
 */
export declare function runOwnerColumns(db: Executor): Promise<string>;
