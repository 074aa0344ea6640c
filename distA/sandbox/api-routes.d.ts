/**
 * The API itself, minus the network: auth, routing, validation and the answers of the
 * analytics and agent endpoints. Takes a parsed request, returns a SandboxResponse.
 */
import type { AnalyticsData } from './analytics-data.js';
import type { JobStore } from './agent-jobs.js';
import type { RateLimits } from './rate-limits.js';
import { type SandboxResponse } from './sandbox-response.js';
export interface ApiRequest {
    method: string;
    pathname: string;
    query: URLSearchParams;
    authorization: string | undefined;
    body: string;
}
export interface ApiContext {
    apiKey: string;
    now: () => number;
    analytics: AnalyticsData;
    jobs: JobStore;
    /** The API's documented rate limits; none when absent. */
    limits?: RateLimits;
}
export interface ApiOptions {
    /** Answer as if one new path had appeared at the head of the listing (a 'drift' fault). */
    drift?: boolean;
    /** Answer every analytics page as the first, claiming more (an 'ignore-offset' fault). */
    ignoreOffset?: boolean;
}
export interface ApiResult {
    response: SandboxResponse;
    /** Whether a requested drift changed the page (it cannot on the first page). */
    drifted: boolean;
}
/** Whether a request is an analytics page past the first, the only kind drift can change. */
export declare function isDriftable(method: string, pathname: string, query: URLSearchParams): boolean;
export declare function handleApiRequest(request: ApiRequest, context: ApiContext, options?: ApiOptions): ApiResult;
