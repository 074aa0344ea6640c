/**
 * The API itself, minus the network: auth, routing, validation and the answers of the
 * analytics and agent endpoints. Takes a parsed request, returns a SandboxResponse.
 */
import type { AnalyticsData } from './analytics-data.js';
import { parseAnalyticsQuery } from './analytics-query.js';
import type { Engagement } from './engagement.js';
import { CURSOR_PAGED, ENGAGEMENT_LIMITS, engagementPage, threadResponse, type EngagementResource } from './engagement-routes.js';
import type { JobStore } from './agent-jobs.js';
import type { RateLimits } from './rate-limits.js';
import { errorResponse, faultResponse, jsonResponse, type SandboxResponse } from './sandbox-response.js';
import { METRICS, type Metric } from './window-listing.js';

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
  /** Like ignoreOffset, but the listing in a new random order each time, as a server whose sort is unstable (a 'shuffle' fault). */
  shuffle?: boolean;
}

export interface ApiResult {
  response: SandboxResponse;
  /**
   * Whether the fault asked for (ApiOptions) changed the answer: a drift cannot change a first
   * page, and 'ignore-offset' or 'shuffle' change only an endpoint that pages. A fault that did
   * not is not used up (the server refunds it).
   */
  faultApplied: boolean;
}

const NOT_FOUND = (): SandboxResponse => errorResponse(404, 'Not found');

/** Path segments, decoded; undefined when the path cannot be decoded. */
function segments(pathname: string): string[] | undefined {
  try {
    return pathname.split('/').slice(1).map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

/** Whether a request is an analytics page past the first, the only kind drift can change. */
export function isDriftable(method: string, pathname: string, query: URLSearchParams): boolean {
  const parts = segments(pathname);
  if (method !== 'GET' || !parts || parts.length !== 4 || parts[0] !== 'v1' || parts[1] !== 'analytics') return false;
  if (!(METRICS as readonly string[]).includes(parts[3] ?? '')) return false;
  const offset = query.get('offset');
  return offset !== null && /^\d+$/.test(offset) && Number(offset) > 0;
}

/** The length in days of the window a request asks for (`dateTo` - `dateFrom`), if it names one. */
export function windowDaysOf(query: URLSearchParams): number | undefined {
  const [from, to] = [query.get('dateFrom'), query.get('dateTo')].map((d) => (d && /^\d{4}-\d{2}-\d{2}$/.test(d) ? Date.parse(`${d}T00:00:00Z`) : NaN));
  const days = (to! - from!) / 86_400_000;
  return Number.isInteger(days) ? days : undefined;
}

export function handleApiRequest(request: ApiRequest, context: ApiContext, options: ApiOptions = {}): ApiResult {
  const plain = (response: SandboxResponse): ApiResult => ({ response, faultApplied: false });
  if (request.authorization !== `Bearer ${context.apiKey}`) return plain(errorResponse(401, 'Unauthorized'));
  const parts = segments(request.pathname);
  if (!parts || parts.some((p) => p === '')) return plain(NOT_FOUND());
  const [version, area, projectId, resource, id, action, ...rest] = parts;
  if (projectId === undefined || rest.length > 0) return plain(NOT_FOUND());
  const wait = context.limits?.take(request.method, parts, context.now()) ?? 0;
  if (wait > 0) {
    return plain(faultResponse(429, 'Rate limit exceeded', { retryAfter: String(Math.ceil(wait / 1000)) }));
  }

  if (version === 'v1' && area === 'analytics' && request.method === 'GET') {
    if (id === undefined && (resource === 'visitors' || resource === 'views')) {
      return analyticsPage(resource, projectId, request.query, context, options);
    }
    const data = (): Engagement => context.analytics.engagement(projectId);
    if (resource === 'assistant' && id === 'threads' && action !== undefined) {
      return plain(threadResponse(action, data(), context.now()));
    }
    if (action !== undefined || resource === undefined) return plain(NOT_FOUND());
    const name = id === undefined ? resource : `${resource}/${id}`;
    if (Object.hasOwn(ENGAGEMENT_LIMITS, name)) {
      const resource = name as EngagementResource;
      const ignoreCursor = (options.ignoreOffset === true || options.shuffle === true) && CURSOR_PAGED.has(resource);
      // A first page (no cursor) is the same whether the cursor is ignored or not: the fault waits for the next.
      return { response: engagementPage(resource, request.query, data(), context.now(), ignoreCursor), faultApplied: ignoreCursor && request.query.has('cursor') };
    }
    return plain(NOT_FOUND());
  }

  if (version === 'v2' && area === 'agent' && resource === 'job') {
    if (id === undefined && request.method === 'POST') return plain(createJob(projectId, request.body, context));
    if (id !== undefined && action === undefined && request.method === 'GET') {
      const job = context.jobs.poll(projectId, id);
      return plain(job ? jsonResponse(200, job) : errorResponse(404, 'Job not found'));
    }
    if (id !== undefined && action === 'message' && request.method === 'POST') {
      const prompt = readPrompt(request.body);
      if (typeof prompt !== 'string') return plain(prompt);
      const job = context.jobs.message(projectId, id, prompt);
      return plain(job ? jsonResponse(200, job) : errorResponse(404, 'Job not found'));
    }
  }
  return plain(NOT_FOUND());
}

function analyticsPage(
  metric: Metric,
  projectId: string,
  params: URLSearchParams,
  context: ApiContext,
  options: ApiOptions,
): ApiResult {
  const now = context.now();
  const parsed = parseAnalyticsQuery(params, now);
  if (!parsed.ok) return { response: errorResponse(400, 'Invalid query parameters', parsed.details), faultApplied: false };
  const { fromDay, toDay, limit, offset } = parsed.query;
  const listing = context.analytics.listing(metric, projectId, fromDay, toDay, now);
  const { totals } = listing;
  const rows = options.shuffle ? shuffled(listing.rows) : listing.rows;
  const ignoreOffset = options.ignoreOffset === true || options.shuffle === true;
  // Drift: one new row at the head pushes every row down by one, so this page starts with
  // the row that ended the previous page, and the site gained a (human) visitor.
  const drifted = options.drift === true && offset > 0 && offset - 1 < rows.length;
  const start = ignoreOffset ? 0 : drifted ? offset - 1 : offset;
  const page = rows.slice(start, start + limit);
  const body = {
    totals: drifted ? { human: totals.human + 1, ai: totals.ai, total: totals.total + 1 } : totals,
    [metric]: page,
    hasMore: ignoreOffset || start + limit < rows.length,
  };
  return { response: jsonResponse(200, body), faultApplied: drifted || ignoreOffset };
}

/** A copy of `rows` in a random order (Fisher-Yates). */
function shuffled<T>(rows: readonly T[]): T[] {
  const copy = [...rows];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** The prompt of a `{prompt}` body, or the 400 that explains why there is none. */
function readPrompt(body: string): string | SandboxResponse {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return errorResponse(400, 'Invalid JSON body');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return errorResponse(400, 'Body must be a JSON object');
  }
  const prompt = (json as { prompt?: unknown }).prompt;
  if (typeof prompt !== 'string') return errorResponse(400, 'prompt is required and must be a string');
  if (prompt.length < 1) return errorResponse(400, 'prompt must not be empty');
  return prompt;
}

function createJob(projectId: string, body: string, context: ApiContext): SandboxResponse {
  const prompt = readPrompt(body);
  if (typeof prompt !== 'string') return prompt;
  return jsonResponse(201, context.jobs.create(projectId, prompt));
}
