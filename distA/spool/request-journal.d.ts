import type { Executor } from '../load/database.js';
export interface JournalLine {
    id: string;
    run_id: string;
    scope: string;
    method: string;
    path: string;
    started_ms: number;
    status: number | null;
    duration_ms: number | null;
}
export interface AttemptStart {
    scope: string;
    method: string;
    path: string;
    startedAt: number;
}
/** Journal file names: `<pid>-<runId>.jsonl`, or `….jsonl.<n>.ingesting` while being moved. */
export declare const JOURNAL_FILE: RegExp;
/** Pure: the lines of journal files, one entry per attempt (start and end lines merged). */
export declare function mergeJournalLines(lines: readonly JournalLine[]): JournalLine[];
export declare class RequestJournal {
    readonly dir: string;
    readonly runId: string;
    private seq;
    private readonly file;
    /** Files taken by a write of this process that has not committed yet. */
    private readonly held;
    private batches;
    /** This run's journal file, open for appending (closed before the file is moved). */
    private fd;
    /** An end line not written yet (see above). */
    private pending;
    private flushScheduled;
    constructor(dir: string, runId: string);
    /** Records an attempt that is about to be sent (on disk when this returns); returns its id for `end`. */
    begin(attempt: AttemptStart): string;
    /** Records how an attempt ended (status 0: no response); written with the next start line. */
    end(id: string, attempt: AttemptStart, status: number, durationMs: number): void;
    /** Writes a waiting end line now. */
    private flush;
    private line;
    private append;
    /** Writes `text` after any waiting end line, in one write. */
    private write;
    /** Closes this run's file (after writing a waiting end line); the next attempt reopens (or recreates) it. */
    close(): void;
    /** Every attempt in every journal file (this run's and any other's), merged. */
    lines(): JournalLine[];
    private files;
    /**
     * Sets aside the files this process may move into the database: its own, and those of
     * processes that are gone. Returns their paths for `ingest` and `settle`.
     */
    take(): string[];
    /**
     * Moves the taken files' attempts into request_log: new attempts are inserted, attempts
     * already there are skipped. An attempt's start and end lines can be in different files (a
     * write took the file while the request was in flight, and its end line went to a fresh
     * file): an end line whose start is already in request_log fills in that row's outcome.
     */
    ingest(tx: Executor, files: readonly string[]): Promise<void>;
    /** After the commit: the moved files are gone. */
    settle(files: readonly string[]): void;
    /** After a rollback: the files stay, for the next write to take. */
    release(files: readonly string[]): void;
}
