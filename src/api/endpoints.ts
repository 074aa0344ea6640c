/**
 * The analytics endpoints, each described by a declaration rather than a walker of its own:
 * its path, how it pages, its largest page, its row schema, its table, and whether it is a
 * window aggregate (a window's rows are a whole, replaced together) or an event stream
 * (rows keyed by the API's id, fetched one day window at a time). The walker, the spool,
 * resume and the request budget are shared by all of them (DESIGN §1, issue 11).
 */
import { z } from 'zod';
import type { Metric, Totals } from '../core/domain.js';
import { DataError } from '../core/errors.js';
import { count, parseAnalyticsPage } from './schemas.js';

/**
 * - `offset`: `limit` + `offset`, ends on `hasMore=false` (visitors, views);
 * - `cursor`: `limit` + `cursor`, ends on `hasMore=false` (feedback; assistant, whose cursor is a ULID);
 * - `cursor-until-null`: `limit` + `cursor`, no `hasMore`: ends on a null `nextCursor` (searches);
 * - `none`: one request per window (feedback by page, caller stats).
 */
export const PAGINGS = ['offset', 'cursor', 'cursor-until-null', 'none'] as const;
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
  rows: readonly { path: string }[];
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

const nullableString = z.string().nullable();

const feedbackSources = z.enum(['code_snippet', 'contextual', 'agent', 'thumbs_only']);
/** The three item shapes of /feedback share their base fields; the rest are optional here. */
const feedbackItem = z.object({
  id: z.string().min(1),
  path: z.string(),
  comment: nullableString,
  createdAt: nullableString,
  source: feedbackSources.or(z.string()),
  status: z.string(),
  helpful: z.boolean().optional(),
  contact: nullableString.optional(),
  code: z.string().optional(),
  filename: nullableString.optional(),
  lang: nullableString.optional(),
});

/**
 * Fields that only describe a row (an enum the API may extend, a ratio) take what comes, null
 * included: the row is kept as sent (their columns are text and DOUBLE), never the reason a
 * window fails on every run and its paid-for body is fetched again. Ids, times and counts stay strict.
 */
const conversation = z.object({
  id: z.string().min(1),
  timestamp: z.string(),
  query: z.string(),
  response: z.string(),
  responseType: z.enum(['answer', 'clarifying_question']).or(z.string()).nullable().optional(),
  sources: z.array(z.object({ title: nullableString, url: nullableString })),
  resolutionStatus: z.enum(['answered', 'unanswered']).or(z.string()).nullable(),
  queryCategory: nullableString,
  pageUrl: nullableString,
  // Not in the spec's schema (the API names a thread by the row's id): taken when a server sends it.
  threadId: nullableString.optional(),
});

const searchItem = z.object({
  searchQuery: z.string(),
  hits: count,
  ctr: z.number().nullable(),
  topClickedPage: nullableString,
  lastSearchedAt: z.string(),
});

const byPageItem = z.object({ path: z.string(), thumbsUp: count, thumbsDown: count, code: count, total: count });

const FEEDBACK_BY_PAGE_LIMIT = 100;

function declare(d: EndpointDeclaration): EndpointDeclaration {
  return d;
}

export const ENDPOINTS: Readonly<Record<Metric, EndpointDeclaration>> = {
  visitors: declare({
    metric: 'visitors',
    path: 'visitors',
    paging: 'offset',
    maxLimit: 250,
    kind: 'aggregate',
    table: 'page_visitors',
    parse: (json, context) => parseAnalyticsPage('visitors', json, context),
  }),
  views: declare({
    metric: 'views',
    path: 'views',
    paging: 'offset',
    maxLimit: 250,
    kind: 'aggregate',
    table: 'page_views',
    parse: (json, context) => parseAnalyticsPage('views', json, context),
  }),
  feedback: declare({
    metric: 'feedback',
    path: 'feedback',
    paging: 'cursor',
    maxLimit: 100,
    kind: 'events',
    table: 'feedback',
    parse: (json) => {
      const b = z.object({ feedback: z.array(feedbackItem), nextCursor: nullableString, hasMore: z.boolean() }).parse(json);
      return { totals: {}, rows: b.feedback.map((f) => ({ path: f.id })), hasMore: b.hasMore, nextCursor: b.nextCursor };
    },
  }),
  'feedback-by-page': declare({
    metric: 'feedback-by-page',
    path: 'feedback/by-page',
    paging: 'none',
    maxLimit: FEEDBACK_BY_PAGE_LIMIT,
    kind: 'aggregate',
    table: 'feedback_by_page',
    parse: (json) => {
      const b = z.object({ feedback: z.array(byPageItem), hasMore: z.boolean() }).parse(json);
      // No pagination: what did not fit is out of reach, and the window says so.
      const warnings = b.hasMore
        ? [`the API returned ${b.feedback.length} pages and says there are more; it has no pagination, so the rest is missing`]
        : [];
      return { totals: {}, rows: b.feedback, hasMore: false, warnings };
    },
  }),
  searches: declare({
    metric: 'searches',
    path: 'searches',
    paging: 'cursor-until-null',
    maxLimit: 100,
    kind: 'aggregate',
    table: 'searches',
    parse: (json) => {
      const b = z.object({ searches: z.array(searchItem), totalSearches: count, nextCursor: nullableString }).parse(json);
      return {
        totals: { totalSearches: b.totalSearches },
        rows: b.searches.map((s) => ({ path: s.searchQuery })),
        hasMore: b.nextCursor !== null,
        nextCursor: b.nextCursor,
      };
    },
  }),
  assistant: declare({
    metric: 'assistant',
    path: 'assistant',
    paging: 'cursor',
    maxLimit: 1000,
    kind: 'events',
    table: 'assistant_conversations',
    parse: (json) => {
      const b = z.object({ conversations: z.array(conversation), nextCursor: nullableString, hasMore: z.boolean() }).parse(json);
      return { totals: {}, rows: b.conversations.map((c) => ({ path: c.id })), hasMore: b.hasMore, nextCursor: b.nextCursor };
    },
  }),
  'caller-stats': declare({
    metric: 'caller-stats',
    path: 'assistant/caller-stats',
    paging: 'none',
    maxLimit: undefined,
    kind: 'aggregate',
    table: 'assistant_caller_stats',
    parse: (json) => {
      const b = z.object({ web: count, api: count, other: count, total: count }).parse(json);
      // The window's one row in assistant_caller_stats.
      return { totals: b, rows: [{ path: 'caller-stats' }], hasMore: false };
    },
  }),
};

export function isEventStream(metric: Metric): boolean {
  return ENDPOINTS[metric].kind === 'events';
}

/** The first position of a walk: offset 0, or no cursor. */
export function firstPosition(paging: Paging): PagePosition {
  return paging === 'offset' ? 0 : null;
}

/**
 * Pure: where the page after `page` (read at `at`) is, or undefined when the walk is over.
 * An empty page ends the walk whatever it claims: it cannot move an offset, and a cursor
 * after nothing is not to be trusted.
 */
export function nextPosition(paging: Paging, at: PagePosition, page: WalkPage): PagePosition | undefined {
  if (!page.hasMore || paging === 'none' || page.rows.length === 0) return undefined;
  if (paging === 'offset') return (typeof at === 'number' ? at : 0) + page.rows.length;
  return page.nextCursor ?? undefined;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid response';
  const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${where}: ${issue.message}`;
}

/** Parses a page of `metric`; a body that breaks the schema is a DataError naming where. */
export function parseEndpointPage(metric: Metric, json: unknown, context: string): WalkPage {
  let page: WalkPage;
  try {
    page = ENDPOINTS[metric].parse(json, context);
  } catch (error) {
    if (error instanceof z.ZodError) throw new DataError(`${context} returned an unexpected body (${describeIssue(error)})`);
    throw error;
  }
  if (ENDPOINTS[metric].paging === 'cursor' && page.hasMore && !page.nextCursor) {
    throw new DataError(`${context} returned an unexpected body (hasMore is true but nextCursor is ${page.nextCursor === '' ? 'empty' : 'null'})`);
  }
  // An empty cursor names no page: sent back, it would read as the first page again (and the
  // walk would take the API for one that ignores its cursor, which stops the run).
  if (ENDPOINTS[metric].paging === 'cursor-until-null' && page.nextCursor === '') {
    throw new DataError(`${context} returned an unexpected body (nextCursor is empty: expected a cursor, or null on the last page)`);
  }
  return page;
}

/** The query string of a page request at `at`. */
export function pageQuery(metric: Metric, window: { dateFrom: string; dateTo: string }, at: PagePosition, limit?: number): Record<string, string | number> {
  const e = ENDPOINTS[metric];
  const query: Record<string, string | number> = { dateFrom: window.dateFrom, dateTo: window.dateTo };
  if (e.maxLimit !== undefined) query.limit = Math.min(limit ?? e.maxLimit, e.maxLimit);
  if (e.paging === 'offset') query.offset = typeof at === 'number' ? at : 0;
  else if (typeof at === 'string') query.cursor = at;
  return query;
}
