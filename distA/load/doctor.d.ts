/**
 * `docpipe doctor`, the pure part: facts about the database and its spool (gathered by
 * ./doctor-io.ts) become findings, and findings become the repairs `--fix` may make. No I/O
 * here, so every rule can be tested with plain objects.
 *
 * The invariants:
 * - grain: a keyless row table holds each (project_id, window_start, window_end, key) once:
 *   the page tables (key `path`), `searches` (`search_query`) and `feedback_by_page`
 *   (`path`). The tables have no key on purpose (DESIGN §4); the loader keeps the grain.
 * - windows: every `loaded_windows` row has its totals row (where the metric has a totals
 *   table), and its `row_count` is the number of keys its row table holds for the window.
 * - orphans: no page or totals row belongs to a window without a `loaded_windows` row (the
 *   loader replaces only windows it knows of, so an orphan would be doubled by the next load).
 * - spool: no walk is left over (completed but not loaded, or abandoned), and no request
 *   journal of an ended process waits to be moved into `request_log`.
 * - runs: no run is left `running` by a process that is gone.
 */
import { type Metric, type Window } from '../core/domain.js';
export declare const CHECKS: readonly ["grain", "windows", "orphans", "spool", "journal", "runs"];
export type Check = (typeof CHECKS)[number];
/** `finding`: an invariant is broken; `info`: worth knowing, not a fault; `fixed`: repaired by --fix. */
export declare const STATUSES: readonly ["ok", "finding", "fixed", "info"];
export type Status = (typeof STATUSES)[number];
/** An incomplete walk older than this is abandoned: --fix discards it. @default 7 days */
export declare const STALE_WALK_MS: number;
/** A repair `--fix` may make, as data; ./doctor-io.ts carries it out. */
export type Repair = 
/** Keep one row of each path of the window. */
{
    kind: 'dedupe';
    metric: Metric;
    projectId: string;
    window: Window;
}
/** Delete the page and totals rows of a window that has no loaded_windows row. */
 | {
    kind: 'delete-orphans';
    metric: Metric;
    projectId: string;
    window: Window;
} | {
    kind: 'mark-crashed';
    runId: string;
}
/** Load the completed walks in the spool (or discard those the database has overtaken). */
 | {
    kind: 'recover-walks';
}
/** Remove an abandoned incomplete walk from the spool. */
 | {
    kind: 'discard-walk';
    metric: Metric;
    projectId: string;
    window: Window;
}
/** Move the request journals of ended processes into request_log. */
 | {
    kind: 'ingest-journal';
};
export interface Finding {
    check: Check;
    status: Status;
    detail: string;
    /** What --fix does about it; absent when nothing is safe to do. */
    repair?: Repair;
}
/** One window of one metric as the database holds it. */
export interface WindowFacts {
    metric: Metric;
    projectId: string;
    window: Window;
    /** Whether loaded_windows has the window. */
    loaded: boolean;
    /** loaded_windows.row_count (null when not recorded). */
    rowCount: number | null;
    /** loaded_windows.fetched_at, ms (null when not loaded). */
    fetchedAt: number | null;
    /** Whether the metric has a totals table. @default true */
    hasTotalsTable?: boolean;
    /** Whether the totals table has the window. */
    totals: boolean;
    /** What a row's key is, as the report names it. @default 'path' */
    key?: string;
    /** The row table, as the report names it. @default 'the page table' */
    table?: string;
    /** Rows of the window in its row table. */
    rows: number;
    /** Distinct keys among them (paths, search queries). */
    paths: number;
    /** Keys held more than once. */
    duplicatePaths: number;
    /** One of those keys, to name in the report. */
    duplicateExample: string | null;
}
/** A `runs` row with status `running`, and whether its process is alive (null: cannot tell). */
export interface RunFacts {
    runId: string;
    command: string | null;
    startedAt: number | null;
    pid: number | null;
    host: string | null;
    alive: boolean | null;
}
/** A window folder in the spool. */
export interface WalkFacts {
    metric: Metric;
    projectId: string;
    window: Window;
    /** The walk's owner names a live process other than this one. */
    ownerLive: boolean;
    ownerPid: number | null;
    /** The done line: the walk reached its end (fetchedAt and rows from it), or null. */
    completed: {
        fetchedAt: number;
        rows: number;
    } | null;
    /** The walk line's startedAt, ms (null: no walk state). */
    startedAt: number | null;
    /** Whole pages in the walk's pages file. */
    pages: number;
}
/** A request-journal file in the spool. */
export interface JournalFacts {
    name: string;
    pid: number;
    /** Written by a live process other than this one: in use. */
    live: boolean;
}
export interface DoctorFacts {
    windows: readonly WindowFacts[];
    runs: readonly RunFacts[];
    walks: readonly WalkFacts[];
    journals: readonly JournalFacts[];
}
export declare const iso: (ms: number) => string;
export declare const plural: (n: number, word: string, many?: string) => string;
/** `visitors docs [2026-03-05, 2026-03-06)`: a window as the report names it. */
export declare function windowLabel(w: {
    metric: Metric;
    projectId: string;
    window: Window;
}): string;
/** Pure: whether a `running` run's process is alive: null when it runs on another host (cannot tell). */
export declare function runIsAlive(run: {
    pid: number | null;
    host: string | null;
}, here: {
    host: string;
    isAlive: (pid: number) => boolean;
}): boolean | null;
/** Grain, windows and orphans. */
export declare function windowFindings(windows: readonly WindowFacts[]): Finding[];
/** Runs left `running`. */
export declare function runFindings(runs: readonly RunFacts[]): Finding[];
/**
 * The spool beside the database: walks and request journals. `loaded` gives the window as
 * the database holds it, to tell a completed walk the database has since overtaken.
 */
export declare function spoolFindings(walks: readonly WalkFacts[], journals: readonly JournalFacts[], loaded: (walk: WalkFacts) => WindowFacts | undefined, now: number): Finding[];
/** Every finding, in check order. */
export declare function diagnose(facts: DoctorFacts, now: number): Finding[];
/** The repairs --fix makes for `findings`, each once. */
export declare function planRepairs(findings: readonly Finding[]): Repair[];
/** How many findings of each status: the summary line. */
export declare function countByStatus(findings: readonly Finding[]): Record<Status, number>;
/** Whether any finding is left (exit 1). */
export declare function hasFindings(findings: readonly Finding[]): boolean;
