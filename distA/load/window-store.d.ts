/**
 * Analytics windows in DuckDB, loaded set-based from the spool. DuckDB parses the spooled
 * page bodies itself (`read_json`, on its own threads) and computes each row's quality flags
 * in SQL; the JavaScript thread only names the files. A window's rows, its totals and its
 * bookkeeping row replace any earlier copy in the caller's transaction, so a crash leaves
 * every window wholly old or wholly new; several windows may share one transaction.
 *
 * The page tables have no key: their grain (project_id, window_start, window_end, path) is
 * kept here (the old copy of a window is deleted before the new one goes in, and a walk that
 * saw a path twice keeps its first copy) and checked by `docpipe doctor`.
 */
import { type LoadedWindow, type Metric } from '../core/domain.js';
import type { CompletedWalk } from '../spool/spool.js';
import type { Executor } from './database.js';
export declare const METRIC_TABLES: {
    readonly visitors: {
        readonly totals: "visitor_totals";
        readonly pages: "page_visitors";
        readonly array: "visitors";
    };
    readonly views: {
        readonly totals: "view_totals";
        readonly pages: "page_views";
        readonly array: "views";
    };
};
/** The row-quality flags, as `flags` lists them (comma-separated). */
export declare const ROW_FLAGS: readonly ["non_integral", "negative", "total_out_of_bounds", "count_missing", "count_out_of_range"];
/**
 * SQL for a row's flags from its raw counts (DOUBLE expressions): NULL for a clean row, else
 * e.g. `non_integral,total_out_of_bounds`. Uniques must satisfy max(human, ai) <= total <=
 * human + ai; a row that does not is kept and flagged, never dropped.
 */
export declare function flagsSql(human: string, ai: string, total: string): string;
/** A completed walk and its spool file of pages (one JSON line a page), ready to load. */
export interface WindowLoad {
    walk: CompletedWalk;
    file: string;
}
export declare function readLoadedWindows(db: Executor, metric: Metric, projectId: string): Promise<Map<string, LoadedWindow>>;
/**
 * Loads completed walks in the caller's transaction: each window's rows, totals and
 * `loaded_windows` row replace its earlier copy. Returns the warnings recorded per window
 * (the walk's, plus a line per row flag, e.g. `3 rows total_out_of_bounds`).
 */
export declare function loadWindows(tx: Executor, loads: readonly WindowLoad[]): Promise<Map<CompletedWalk, string[]>>;
