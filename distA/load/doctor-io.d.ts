import { type Spool } from '../spool/spool.js';
import type { Executor } from './database.js';
import { type DoctorFacts, type Finding, type JournalFacts, type Repair, type RunFacts, type WalkFacts, type WindowFacts } from './doctor.js';
import type { Store } from './store.js';
/**
 * Every window of every metric with a keyless row table that any of loaded_windows, the
 * totals table or the row table knows of, with what each holds of it. One pass over each
 * row table.
 */
export declare function readWindowFacts(db: Executor): Promise<WindowFacts[]>;
/** Marks these runs `crashed` if they are still `running`; returns the ids it marked. */
export declare function markRunsCrashed(tx: Executor, runIds: readonly string[], now: number): Promise<string[]>;
/** Runs recorded as `running`, with whether their process is alive on this host. */
export declare function readRunFacts(db: Executor): Promise<RunFacts[]>;
/**
 * What the spool holds, read without changing anything (pages are counted, not repaired). A journal is in use when its process lives, the rule by which
 * the journal itself decides what a write may move.
 */
export declare function surveySpool(spool: Spool): {
    walks: WalkFacts[];
    journals: JournalFacts[];
};
/** Everything ./doctor.ts judges: the database's windows and runs, and the spool. */
export declare function readDoctorFacts(db: Executor, spool: Spool): Promise<DoctorFacts>;
export interface RepairContext {
    store: Store;
    spool: Spool;
    now: number;
}
/**
 * Carries out `repairs` and says what was done, one `fixed` finding per thing repaired.
 * Database repairs first, in one transaction (which also moves the request journals of
 * ended processes in), so that a window's orphan rows are gone before a spooled walk of
 * that window is loaded; then the spool.
 */
export declare function applyRepairs(repairs: readonly Repair[], ctx: RepairContext): Promise<Finding[]>;
