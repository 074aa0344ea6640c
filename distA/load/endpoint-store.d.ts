import type { Metric } from '../core/domain.js';
import type { CompletedWalk } from '../spool/spool.js';
import type { Executor } from './database.js';
interface RowLoad {
    table: string;
    /** The array of the page body that holds the rows. */
    array: string;
    /** The DuckDB type of one item of that array (only the fields loaded). */
    item: string;
    /** SQL of a row's identity, over the item `r`. */
    key: string;
    /** Target column and its SQL over the item `r`, in insert order. */
    columns: readonly (readonly [string, string])[];
    /** The item's counts (stored rounded): a non-integral one is a warning on its window. */
    counts?: readonly string[];
}
/** The row tables of the metrics that have rows (caller stats has none). */
export declare const ROW_LOADS: Partial<Record<Metric, RowLoad>>;
/** A completed walk and its spool file of pages. */
export interface EndpointLoad {
    walk: CompletedWalk;
    file: string;
}
/**
 * Loads completed walks of one metric other than visitors and views in the caller's
 * transaction. Returns the warnings recorded per window.
 */
export declare function loadEndpointWindows(tx: Executor, metric: Metric, loads: readonly EndpointLoad[]): Promise<Map<CompletedWalk, string[]>>;
export {};
