import type { HttpClient } from '../api/http-client.js';
import type { RequestBudget } from '../api/request-budget.js';
import type { Clock } from '../core/clock.js';
import { type Metric, type Window } from '../core/domain.js';
import { type ExitCode } from '../core/errors.js';
import { type StopReason } from '../core/outcome.js';
import type { Store } from '../load/store.js';
import type { Spool } from '../spool/spool.js';
import { type WalkOptions } from './page-walker.js';
import { type FetchReason } from './plan-export.js';
import type { Grain } from './windows.js';
export interface ExportTask {
    metric: Metric;
    projectId: string;
    /** The grain of `windows`: several grains take turns, coarsest first. */
    grain: Grain;
    windows: readonly Window[];
}
/** Why a window was loaded: the plan's reason, or `spool` for a walk an earlier run completed. */
export type LoadReason = FetchReason | 'spool';
export type WindowEvent = {
    kind: 'loaded';
    metric: Metric;
    projectId: string;
    window: Window;
    reason: LoadReason;
    rows: number;
    pages: number;
    requests: number;
    walks: number;
    warnings: readonly string[];
} | {
    kind: 'failed';
    metric: Metric;
    projectId: string;
    window: Window;
    requests: number;
    error: string;
} | {
    kind: 'busy';
    metric: Metric;
    projectId: string;
    window: Window;
    detail: string;
};
export interface ExportOptions {
    store: Store;
    spool: Spool;
    client: HttpClient;
    budget: RequestBudget;
    clock: Clock;
    runId: string;
    tasks: readonly ExportTask[];
    /** Fetch every window, loaded or not. @default false */
    refresh?: boolean;
    /** @default 2 */
    lookbackDays?: number;
    walk?: WalkOptions;
    signal?: AbortSignal;
    /** Told how many windows will be fetched, once the plan is read and before the first request. */
    onPlan?: (plan: {
        toFetch: number;
        skipped: number;
        fromSpool: number;
    }) => void;
    onWindow?: (event: WindowEvent) => void;
    /** Told when no more requests will be made, before the last loads. */
    onFetched?: () => Promise<void>;
    /** The database was created by this run (Store.holdForStart): nothing is loaded, no read needed. @default false */
    newDatabase?: boolean;
    /** Database work the loads follow (the run's record); its failure fails the first load. */
    beforeLoads?: Promise<unknown>;
}
export interface ExportSummary {
    windowsPlanned: number;
    windowsSkipped: number;
    /** Windows loaded from walks an earlier run had completed in the spool (no request). */
    windowsFromSpool: number;
    windowsLoaded: number;
    windowsFailed: number;
    windowsLeft: number;
    rows: number;
    requests: number;
    warnings: number;
    stopped: StopReason | null;
    stopMessage: string | null;
    exitCode: ExitCode;
}
export declare function runExport(options: ExportOptions): Promise<ExportSummary>;
