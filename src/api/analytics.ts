import type { HttpClient } from './http-client.js';
import type { Metric } from '../core/domain.js';
import { parseAnalyticsPage, type AnalyticsPage } from './schemas.js';

/** The API's largest page; always asked for, since requests are the scarce resource. */
export const MAX_PAGE_SIZE = 250;

export interface PageQuery {
  metric: Metric;
  projectId: string;
  dateFrom: string;
  dateTo: string;
  offset: number;
  /** @default 250 */
  limit?: number;
  signal?: AbortSignal;
}

/** A page as parsed, and its body exactly as received (for the spool). */
export interface ReceivedPage {
  page: AnalyticsPage;
  body: string;
}

export function fetchAnalyticsPage(client: HttpClient, query: PageQuery): Promise<ReceivedPage> {
  const path = `/v1/analytics/${encodeURIComponent(query.projectId)}/${query.metric}`;
  return client.request({
    method: 'GET',
    path,
    query: {
      dateFrom: query.dateFrom,
      dateTo: query.dateTo,
      limit: query.limit ?? MAX_PAGE_SIZE,
      offset: query.offset,
    },
    parse: (json, body) => ({ page: parseAnalyticsPage(query.metric, json, `GET ${path}`), body }),
    ...(query.signal ? { signal: query.signal } : {}),
  });
}
