/**
 * The request log as the request budget reads it: `request_log` in the database plus the
 * journal lines not yet moved there, so that back-to-back runs (and a run after kill -9)
 * share one exact hourly budget.
 */
import type { RequestHistory } from '../api/request-budget.js';
import type { RequestJournal } from '../spool/request-journal.js';
import type { Store } from './store.js';
export declare class RequestLog implements RequestHistory {
    private readonly store;
    private readonly journal;
    /** The database was created by this run and holds no request yet: the first read needs only the journal. */
    private newDatabase;
    constructor(store: Store, journal: RequestJournal, 
    /** The database was created by this run and holds no request yet: the first read needs only the journal. */
    newDatabase?: boolean);
    requestTimes(scope: string, sinceMs: number): Promise<number[]>;
}
