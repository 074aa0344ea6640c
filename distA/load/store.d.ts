import type { RequestJournal } from '../spool/request-journal.js';
import { Database, type Executor, type OpenOptions, type Params } from './database.js';
export declare class Store {
    readonly path: string;
    readonly journal?: RequestJournal | undefined;
    readonly options: OpenOptions;
    /** Statements (`run`) waiting for the write being committed. */
    private queued;
    private committing;
    constructor(path: string, options?: OpenOptions, journal?: RequestJournal | undefined);
    /**
     * Opens the file and keeps it open until the returned `release`: steps that follow each
     * other at once (a run's start; its last loads and its record) share one open instead of
     * each opening and closing it (about 20 ms each). `release` may be called again: it then
     * does nothing.
     */
    hold(): Promise<() => Promise<void>>;
    /**
     * `hold`, for a run's start: a file that does not exist yet is created and locked, and its
     * schema is made in the background (every statement waits for it). `isNew` says the file
     * holds nothing yet, so that the run's plan needs no read of it: on a new database the first
     * request went out about 40 ms after the CLI started, against about 105 ms when the schema
     * was made first.
     */
    holdForStart(): Promise<{
        release: () => Promise<void>;
        isNew: boolean;
    }>;
    /** Reads with the file held only for `work`. */
    read<T>(work: (db: Database) => Promise<T>): Promise<T>;
    /** One transaction with the file held only for it; the request journal moves in with it. */
    write<T>(work: (tx: Executor) => Promise<T>): Promise<T>;
    /**
     * One statement, committed before this resolves, in a short write. Statements that arrive
     * while another is committing (the polls of several jobs, due at the same moment) go in
     * together in the next write: one open instead of one each.
     */
    run(sql: string, params: Params): Promise<void>;
    private commitQueued;
}
