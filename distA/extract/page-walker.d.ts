/**
 * The page walker: reads one window's pages until the endpoint's paging says it is over
 * (src/api/endpoints.ts: offset + `hasMore`, cursor + `hasMore`, a cursor that ends on null,
 * or a single page), putting every page body in the spool before the next request (DESIGN
 * rule 9). Offsets advance by the rows received (not by `limit`). Anything that suggests the data moved under the walk (a
 * repeated path, totals that change between pages, an empty page that claims more) restarts
 * the walk, a bounded number of times, before the window is loaded with a warning.
 *
 * A walk the spool already holds is picked up where it stopped: its pages are read back (not
 * fetched), and the walk resumes at the next offset. If the first page fetched then shows
 * other totals, the data moved since: that is drift, and the walk restarts.
 */
import type { ReceivedPage } from '../api/analytics.js';
import { type PagePosition, type Paging, type WalkPage } from '../api/endpoints.js';
import type { Series, Totals, Window } from '../core/domain.js';
import type { CompletedWalk, SpooledPage, WalkState } from '../spool/spool.js';
export interface WalkOptions {
    /** Re-walks after drift before loading with a warning. @default 3 */
    maxRewalks?: number;
    /** Runaway guard: pages in one walk. @default 2_000 (500,000 rows) */
    maxPages?: number;
}
/**
 * Reads the page at `at`: an offset, or a cursor (null for the first page). Declared as a
 * method so that a fetcher of one paging style (`(offset: number) => ...`) fits too.
 */
export type PageFetcher = {
    fetch(at: PagePosition): Promise<ReceivedPage>;
}['fetch'];
/** Where a walk keeps its pages: the spool (SpoolWalk), or anything with the same calls. */
export interface PageSink {
    state(): WalkState | null;
    begin(state: WalkState): void;
    /** The whole pages spooled so far, in walk order; a torn tail is cut off. */
    recover(): SpooledPage[];
    writePage(index: number, body: string): void;
    /** Keeps the first `count` pages. */
    truncate(count: number): void;
    /** Lets go of open files; the walk may still be resumed. */
    close(): void;
    complete(walk: CompletedWalk): void;
}
export interface WalkContext extends Series {
    window: Window;
    runId: string;
    now: () => number;
    /** Requests this run has spent on the window so far (retries included). */
    requestsSpent: () => number;
}
/** Pure: the next offset, or null when the walk is over. */
export declare function nextOffset(offset: number, page: WalkPage): number | null;
/** Pure bookkeeping of one walk: where it is, what it has seen, and what looked like drift. */
export declare class WalkProgress {
    readonly paging: Paging;
    /** Offset paging: the next offset, null once the walk is over. */
    offset: number | null;
    /** Cursor paging: the cursor of the next page (null: the first page). */
    cursor: string | null;
    private done;
    pages: number;
    totals: Totals | undefined;
    repeatedPaths: boolean;
    readonly drift: string[];
    /** Warnings the pages themselves gave (e.g. a truncated unpaged listing). */
    readonly pageWarnings: string[];
    private readonly seen;
    /** A fingerprint of each page taken (first path, last path, row count). */
    private readonly pageFingerprints;
    constructor(paging?: Paging);
    get finished(): boolean;
    /** Where the next page is. */
    get position(): PagePosition;
    /** The position as the drift lines name it. */
    private get where();
    /** Distinct paths seen: the rows the window will have. */
    get rows(): number;
    /** What the page at the current offset would show of drift, without taking it. */
    driftOf(page: WalkPage): string[];
    /**
     * Whether the page is an earlier page again, row for row: the server ignores `offset`.
     * Drift moves a few rows across a page boundary; it does not serve the same page twice.
     */
    repeatsEarlierPage(page: WalkPage): boolean;
    /**
     * Takes the page at the current offset (drift and all) and moves on. `drift` is what
     * `driftOf` found on this page, when the caller has asked already.
     */
    accept(page: WalkPage, drift?: readonly string[]): void;
}
/**
 * Walks a window into `sink` and returns the completed walk (also recorded in the sink).
 * Throws what the fetcher throws (budget, interrupt, HTTP errors): the pages spooled so far
 * stay, and the next walk of the window resumes from them.
 */
export declare function walkWindow(fetchPage: PageFetcher, sink: PageSink, context: WalkContext, options?: WalkOptions): Promise<CompletedWalk>;
