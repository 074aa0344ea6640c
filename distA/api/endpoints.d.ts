import type { Metric, Totals } from '../core/domain.js';
/**
 * - `offset`: `limit` + `offset`, ends on `hasMore=false` (visitors, views);
 * - `cursor`: `limit` + `cursor`, ends on `hasMore=false` (feedback; assistant, whose cursor is a ULID);
 * - `cursor-until-null`: `limit` + `cursor`, no `hasMore`: ends on a null `nextCursor` (searches);
 * - `none`: one request per window (feedback by page, caller stats).
 */
export declare const PAGINGS: readonly ["offset", "cursor", "cursor-until-null", "none"];
export type Paging = (typeof PAGINGS)[number];
export type EndpointKind = 'aggregate' | 'events';
/** Where the next page of a walk is: an offset, a cursor (null: the first page), or nothing. */
export type PagePosition = number | string | null;
/**
 * One page as the walker needs it. `rows` carry each row's identity as `path` (a page path,
 * a search query or an event id): a repeated identity within a walk is a drift signal.
 * `totals` are the window-level numbers a page carries; they must not change between pages.
 */
export interface WalkPage {
    totals: Totals;
    rows: readonly {
        path: string;
    }[];
    /** Whether the walk goes on after this page (for `cursor-until-null`: a non-null cursor). */
    hasMore: boolean;
    /** The cursor of the next page (cursor paging only). */
    nextCursor?: string | null;
    /** Data-quality lines the page itself gives reason for. */
    warnings?: readonly string[];
}
export interface EndpointDeclaration {
    metric: Metric;
    /** After `/v1/analytics/{projectId}/`. */
    path: string;
    paging: Paging;
    /** The largest `limit` the API takes, always asked for; undefined: the endpoint takes none. */
    maxLimit: number | undefined;
    kind: EndpointKind;
    /** The table the rows go to (an aggregate's window totals may go to a second one). */
    table: string;
    /** Turns a body into a page; throws a ZodError, or a DataError that names `context`. */
    parse(json: unknown, context: string): WalkPage;
}
export declare const ENDPOINTS: Readonly<Record<Metric, EndpointDeclaration>>;
export declare function isEventStream(metric: Metric): boolean;
/** The first position of a walk: offset 0, or no cursor. */
export declare function firstPosition(paging: Paging): PagePosition;
/**
 * Pure: where the page after `page` (read at `at`) is, or undefined when the walk is over.
 * An empty page ends the walk whatever it claims: it cannot move an offset, and a cursor
 * after nothing is not to be trusted.
 */
export declare function nextPosition(paging: Paging, at: PagePosition, page: WalkPage): PagePosition | undefined;
/** Parses a page of `metric`; a body that breaks the schema is a DataError naming where. */
export declare function parseEndpointPage(metric: Metric, json: unknown, context: string): WalkPage;
/** The query string of a page request at `at`. */
export declare function pageQuery(metric: Metric, window: {
    dateFrom: string;
    dateTo: string;
}, at: PagePosition, limit?: number): Record<string, string | number>;
