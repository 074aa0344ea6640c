/**
 * Recovering what a run left in the spool: walks that reached their end but were never
 * loaded (a spent budget, a locked database, a crash between the walk and its write). They
 * cost no request to load. `docpipe export` does this before it plans, `docpipe doctor --fix`
 * on demand; both go through here so that the two agree on which walks are theirs to load
 * and which the database has already overtaken.
 */
import type { LoadedWindow } from '../core/domain.js';
import { type CompletedWalk, type Spool, type SpoolWalk } from '../spool/spool.js';
import type { WindowLoad } from './window-store.js';
/** A completed walk and its folder in the spool. */
export interface SpooledCompletion {
    spooled: SpoolWalk;
    walk: CompletedWalk;
}
/** Completed walks in the spool that no live process owns (a live owner is walking or loading it). */
export declare function findCompletedWalks(spool: Spool): SpooledCompletion[];
/** Pure: whether the database's copy of the window is at least as recent as the walk. */
export declare function isSuperseded(walk: Pick<CompletedWalk, 'fetchedAt'>, loaded: LoadedWindow | undefined): boolean;
export interface ClaimedWalks {
    /** Claimed by this process, to be loaded (then removed from the spool). */
    toLoad: SpooledCompletion[];
    /** The database already had the window from a fetch at least as recent: removed from the spool. */
    discarded: SpooledCompletion[];
    /** Claimed by a live process meanwhile: left alone. */
    busy: SpooledCompletion[];
}
/**
 * Claims each completed walk for this process and sorts it: a walk the database has
 * overtaken (`loadedOf` gives the window as loaded, if it is) is removed from the spool at
 * once; the others are this process's to load.
 */
export declare function claimCompletedWalks(completed: readonly SpooledCompletion[], loadedOf: (walk: CompletedWalk) => LoadedWindow | undefined): ClaimedWalks;
/** What the loader (./window-store.ts) needs of a completed walk in the spool. */
export declare function windowLoadOf(c: SpooledCompletion): WindowLoad;
