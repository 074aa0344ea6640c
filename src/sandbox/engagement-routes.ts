/**
 * The sandbox's feedback, searches and assistant endpoints, with the paging the API
 * documents for each: `/feedback` pages by an opaque cursor with `hasMore`; `/assistant` by
 * the ULID of the last conversation with `hasMore`; `/searches` by an opaque cursor and ends
 * on a null `nextCursor` (no `hasMore`); `/feedback/by-page` and `/assistant/caller-stats`
 * do not page at all. A cursor the server did not make is a 400 with the API's error body.
 */
import { parseAnalyticsQuery, type LimitRule } from './analytics-query.js';
import { ULID, type Engagement, type FeedbackEvent } from './engagement.js';
import { errorResponse, jsonResponse, type SandboxResponse } from './sandbox-response.js';

/** Their page sizes; none takes `offset`, and caller-stats takes no `limit` either (the OpenAPI file's parameters). */
export const ENGAGEMENT_LIMITS = {
  feedback: { defaultLimit: 50, maxLimit: 100, takesOffset: false },
  'feedback/by-page': { defaultLimit: 10, maxLimit: 100, takesOffset: false },
  searches: { defaultLimit: 50, maxLimit: 100, takesOffset: false },
  assistant: { defaultLimit: 100, maxLimit: 1000, takesOffset: false },
  'assistant/caller-stats': { defaultLimit: 1, maxLimit: 1, takesLimit: false, takesOffset: false },
} as const satisfies Record<string, LimitRule>;

/** The endpoints that page (by a cursor): the only ones an 'ignore-offset' or 'shuffle' fault changes. */
export const CURSOR_PAGED: ReadonlySet<EngagementResource> = new Set(['feedback', 'searches', 'assistant']);

export type EngagementResource = keyof typeof ENGAGEMENT_LIMITS;

const invalid = (message: string): SandboxResponse => errorResponse(400, 'Invalid query parameters', [{ message }]);

const encodeCursor = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
function decodeCursor(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Filters of /feedback and /feedback/by-page; a 400 for a source the API does not know. */
function feedbackFilter(params: URLSearchParams): ((f: FeedbackEvent) => boolean) | SandboxResponse {
  const source = params.get('source');
  if (source !== null && !['code_snippet', 'contextual', 'agent', 'thumbs_only'].includes(source)) {
    return invalid(`source must be one of code_snippet, contextual, agent, thumbs_only, got "${source}"`);
  }
  const statuses = params.get('status')?.split(',').map((s) => s.trim()).filter(Boolean);
  return (f) => (source === null || f.source === source) && (!statuses || statuses.includes(f.status));
}

const served = (f: FeedbackEvent): Omit<FeedbackEvent, 'at'> => {
  const { at: _at, ...rest } = f;
  return rest;
};

/**
 * A page of one of these endpoints. `ignoreCursor`: answer as a server that ignores its
 * cursor would (an 'ignore-offset' or 'shuffle' fault): the first page again, claiming more.
 */
export function engagementPage(resource: EngagementResource, params: URLSearchParams, data: Engagement, now: number, ignoreCursor = false): SandboxResponse {
  const parsed = parseAnalyticsQuery(params, now, ENGAGEMENT_LIMITS[resource]);
  if (!parsed.ok) return errorResponse(400, 'Invalid query parameters', parsed.details);
  const { fromDay, toDay, limit } = parsed.query;
  const cursor = ignoreCursor ? null : params.get('cursor');

  switch (resource) {
    case 'feedback': {
      const filter = feedbackFilter(params);
      if (typeof filter !== 'function') return filter;
      const all = data.feedback(fromDay, toDay, now).filter(filter);
      let start = 0;
      if (cursor !== null) {
        // The cursor names the last entry served: [its time, its id].
        const after = decodeCursor(cursor);
        if (!Array.isArray(after) || typeof after[0] !== 'number' || typeof after[1] !== 'string') return invalid('cursor is not valid');
        const [at, id] = after as [number, string];
        start = all.findIndex((f) => f.at < at || (f.at === at && f.id < id));
        if (start < 0) start = all.length;
      }
      const page = all.slice(start, start + limit);
      const last = page.at(-1);
      const hasMore = start + limit < all.length;
      return jsonResponse(200, { feedback: page.map(served), nextCursor: hasMore && last ? encodeCursor([last.at, last.id]) : null, hasMore });
    }
    case 'feedback/by-page': {
      const filter = feedbackFilter(params);
      if (typeof filter !== 'function') return filter;
      const byPath = new Map<string, { path: string; thumbsUp: number; thumbsDown: number; code: number; total: number }>();
      for (const f of data.feedback(fromDay, toDay, now).filter(filter)) {
        const row = byPath.get(f.path) ?? { path: f.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
        if (f.source === 'contextual' && f.helpful === true) row.thumbsUp++;
        if (f.source === 'contextual' && f.helpful === false) row.thumbsDown++;
        if (f.source === 'code_snippet') row.code++;
        row.total++;
        byPath.set(f.path, row);
      }
      const rows = [...byPath.values()].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : 1));
      return jsonResponse(200, { feedback: rows.slice(0, limit), hasMore: rows.length > limit });
    }
    case 'searches': {
      const { terms, totalSearches } = data.searches(fromDay, toDay, now);
      let start = 0;
      if (cursor !== null) {
        const decoded = decodeCursor(cursor);
        const o = typeof decoded === 'object' && decoded !== null ? (decoded as { o?: unknown }).o : undefined;
        // Only a place this listing has: a cursor the server did not make is a 400.
        if (typeof o !== 'number' || !Number.isInteger(o) || o < 0 || o > terms.length) return invalid('cursor is not valid');
        start = o;
      }
      const next = start + limit;
      return jsonResponse(200, {
        searches: terms.slice(start, next),
        totalSearches,
        nextCursor: next < terms.length ? encodeCursor({ o: next }) : null,
      });
    }
    case 'assistant': {
      if (cursor !== null && !ULID.test(cursor)) return invalid('cursor must be a ULID');
      const all = data.conversations(fromDay, toDay, now);
      const start = cursor === null ? 0 : all.findIndex((c) => c.id > cursor);
      const from = start < 0 ? all.length : start;
      const page = all.slice(from, from + limit);
      const hasMore = from + limit < all.length;
      return jsonResponse(200, {
        conversations: page.map(({ at: _at, caller: _caller, ...c }) => c),
        nextCursor: hasMore ? (page.at(-1)?.id ?? null) : null,
        hasMore,
      });
    }
    case 'assistant/caller-stats':
      return jsonResponse(200, data.callerStats(fromDay, toDay, now));
  }
}

export function threadResponse(threadId: string, data: Engagement, now: number): SandboxResponse {
  if (!ULID.test(threadId)) return errorResponse(400, 'Invalid thread ID', [{ message: 'threadId must be a ULID' }]);
  const thread = data.thread(threadId, now);
  return thread ? jsonResponse(200, thread) : errorResponse(404, 'Thread not found');
}
