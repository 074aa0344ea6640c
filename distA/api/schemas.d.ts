import type { ApiRow, Counts, PageMetric } from '../core/domain.js';
/** One page of `/visitors` or `/views`, with the metric's array under a common name. */
export interface AnalyticsPage {
    totals: Counts;
    rows: ApiRow[];
    hasMore: boolean;
}
export declare function parseAnalyticsPage(metric: PageMetric, json: unknown, context: string): AnalyticsPage;
/** The AgentJob statuses the API documents; any other is stored verbatim and followed like `active`. */
export declare const API_STATUSES: readonly ["active", "completed", "archived", "failed"];
export declare const TERMINAL_STATUSES: ReadonlySet<string>;
export declare function isKnownApiStatus(status: string | null): boolean;
/** An agent job as far as it could be read; every field may be missing. */
export interface AgentJob {
    id: string | null;
    /** The API's status string, kept even when it is not one we know. */
    status: string | null;
    repository: string | null;
    ref: string | null;
    model: string | null;
    /** The pull request, when the API sent an http(s) URL. */
    prLink: string | null;
    /** What the API sent as `prLink` when it was not an http(s) URL (flagged, never stored as a link). */
    badPrLink: string | null;
    /** Why the job failed, when the API says (not documented: `error`, `errorMessage`, `failureReason` or `reason`). */
    reason: string | null;
    createdAt: string | null;
    archivedAt: string | null;
}
/** Whether a pull-request link is a link: an absolute http(s) URL. */
export declare function isHttpUrl(value: string): boolean;
/** Parses an AgentJob defensively; only a body that is not an object at all is an error. */
export declare function parseAgentJob(json: unknown, context: string): AgentJob;
export declare function isTerminalStatus(status: string | null): boolean;
