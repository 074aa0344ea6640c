export declare const DEFAULT_LIMIT = 50;
export declare const MAX_LIMIT = 250;
export declare const DEFAULT_WINDOW_DAYS = 30;
/** Protects the sandbox from a window it would take seconds to compute. */
export declare const MAX_WINDOW_DAYS = 3660;
export interface AnalyticsQuery {
    /** First UTC day (days since 1970-01-01), inclusive. */
    fromDay: number;
    /** Last UTC day, exclusive. */
    toDay: number;
    limit: number;
    offset: number;
}
export type QueryResult = {
    ok: true;
    query: AnalyticsQuery;
} | {
    ok: false;
    details: {
        message: string;
    }[];
};
/** The UTC day of a date or date-time, or undefined when it is not one. */
export declare function parseDay(text: string): number | undefined;
/** The page sizes of an endpoint. */
export interface LimitRule {
    /** @default 50 */
    defaultLimit: number;
    /** @default 250 */
    maxLimit: number;
}
export declare function parseAnalyticsQuery(params: URLSearchParams, nowMs: number, rule?: LimitRule): QueryResult;
