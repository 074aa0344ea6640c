import type { HttpClient } from './http-client.js';
import type { Metric } from '../core/domain.js';
import { type WalkPage } from './endpoints.js';
/** The largest page of /visitors and /views; always asked for, since requests are the scarce resource. */
export declare const MAX_PAGE_SIZE = 250;
export interface PageQuery {
    metric: Metric;
    projectId: string;
    dateFrom: string;
    dateTo: string;
    /** Offset paging: the offset. @default 0 */
    offset?: number;
    /** Cursor paging: the cursor of the page (none for the first). */
    cursor?: string | null;
    /** @default the endpoint's largest page */
    limit?: number;
    signal?: AbortSignal;
}
/** A page as parsed, and its body exactly as received (for the spool). */
export interface ReceivedPage {
    page: WalkPage;
    body: string;
}
/** The request path of an endpoint of a project. */
export declare function endpointPath(metric: Metric, projectId: string): string;
/** Reads one page of any analytics endpoint, with the query its paging style takes. */
export declare function fetchAnalyticsPage(client: HttpClient, query: PageQuery): Promise<ReceivedPage>;
