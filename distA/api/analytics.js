import { ENDPOINTS, pageQuery, parseEndpointPage } from './endpoints.js';
/** The largest page of /visitors and /views; always asked for, since requests are the scarce resource. */
export const MAX_PAGE_SIZE = 250;
/** The request path of an endpoint of a project. */
export function endpointPath(metric, projectId) {
    return `/v1/analytics/${encodeURIComponent(projectId)}/${ENDPOINTS[metric].path}`;
}
/** Reads one page of any analytics endpoint, with the query its paging style takes. */
export function fetchAnalyticsPage(client, query) {
    const path = endpointPath(query.metric, query.projectId);
    const at = ENDPOINTS[query.metric].paging === 'offset' ? (query.offset ?? 0) : (query.cursor ?? null);
    return client.request({
        method: 'GET',
        path,
        query: pageQuery(query.metric, query, at, query.limit),
        parse: (json, body) => ({ page: parseEndpointPage(query.metric, json, `GET ${path}`), body }),
        ...(query.signal ? { signal: query.signal } : {}),
    });
}
//# sourceMappingURL=analytics.js.map