/**
 * The shared walker over the cursor-paged endpoints of the real sandbox: resume at the next
 * cursor from the spool, a cursor the server refuses, and the pure paging rules.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchAnalyticsPage } from '../../src/api/analytics.js';
import { nextPosition, parseEndpointPage, type PagePosition } from '../../src/api/endpoints.js';
import { HttpClient } from '../../src/api/http-client.js';
import { ManualClock } from '../../src/core/clock.js';
import type { Metric } from '../../src/core/domain.js';
import { BudgetExhaustedError, DataError, HttpError } from '../../src/core/errors.js';
import { walkWindow } from '../../src/extract/page-walker.js';
import { SANDBOX_API_KEY, startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { Spool, type SpoolWalk } from '../../src/spool/spool.js';

const NOW = Date.parse('2026-03-10T06:00:00Z');
const window = { start: '2026-03-02', end: '2026-03-03' };

describe('walkWindow over cursor pages of the sandbox', () => {
  let sandbox: Sandbox;
  let dir: string;
  let spool: Spool;
  const clock = new ManualClock(NOW);
  beforeAll(async () => {
    sandbox = await startSandbox({
      now: () => clock.now(),
      engagement: { searchTermsPerDay: 250, feedbackPerDay: 230, conversationsPerDay: 0, exact: true },
    });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-cursor-'));
    spool = new Spool(dir);
    sandbox.requests.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A fetcher of `metric`; `tamper` may change the cursor sent. */
  function fetcher(metric: Metric, tamper: (cursor: string, call: number) => string = (c) => c) {
    const live = new HttpClient({ apiKey: SANDBOX_API_KEY, baseUrl: sandbox.url, clock, minBackoffMs: 1, maxBackoffMs: 2 });
    let calls = 0;
    return {
      get calls() {
        return calls;
      },
      fetch: (at: PagePosition) => {
        calls++;
        const cursor = typeof at === 'string' ? tamper(at, calls) : null;
        return fetchAnalyticsPage(live, { metric, projectId: 'docs', dateFrom: window.start, dateTo: window.end, cursor });
      },
    };
  }
  const context = (metric: Metric, spent: () => number) => ({
    metric,
    projectId: 'docs',
    window,
    runId: 'run-1',
    now: () => clock.now(),
    requestsSpent: spent,
  });
  const sinkOf = (metric: Metric): SpoolWalk => spool.walk({ metric, projectId: 'docs' }, window);

  it('a walk stopped after its first page resumes at the next cursor from the spool', async () => {
    const f = fetcher('searches');
    let budget = 1;
    const limited = (at: PagePosition) => {
      if (budget-- <= 0) return Promise.reject(new BudgetExhaustedError('spent'));
      return f.fetch(at);
    };
    await expect(walkWindow(limited, sinkOf('searches'), context('searches', () => f.calls))).rejects.toThrow(BudgetExhaustedError);
    expect(sinkOf('searches').pages()).toHaveLength(1);
    const resumed = await walkWindow(f.fetch, sinkOf('searches'), context('searches', () => f.calls));
    expect(resumed).toMatchObject({ rows: 250, pages: 3, walks: 1 });
    // Two more requests, and the first of them carried the cursor of the spooled page.
    expect(sandbox.requests.map((r) => r.query.cursor ?? null)).toEqual([null, expect.any(String), expect.any(String)]);
    expect(sandbox.requests[1]?.query.cursor).toBe((sinkOf('searches').pages()[0]?.body as { nextCursor: string }).nextCursor);
  });

  it('a cursor the server rejects restarts the walk once, and the walk completes', async () => {
    const f = fetcher('feedback', (c, call) => (call === 2 ? 'not-a-cursor' : c));
    const result = await walkWindow(f.fetch, sinkOf('feedback'), context('feedback', () => f.calls));
    expect(result).toMatchObject({ rows: 230, walks: 2, requests: 5 });
    expect(sandbox.requests.map((r) => r.status)).toEqual([200, 400, 200, 200, 200]);
  });

  it('a cursor the server always rejects fails the window with the HTTP 400, after bounded re-walks', async () => {
    const f = fetcher('feedback', () => 'not-a-cursor');
    const error = await walkWindow(f.fetch, sinkOf('feedback'), context('feedback', () => f.calls), { maxRewalks: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    expect(sandbox.requests.filter((r) => r.status === 400)).toHaveLength(3);
  });
});

describe('a server that ignores the cursor', () => {
  it('stops the run at the second page instead of walking the same page again', async () => {
    const clock = new ManualClock(NOW);
    const sandbox = await startSandbox({ now: () => clock.now(), engagement: { searchTermsPerDay: 250, exact: true } });
    const dir = mkdtempSync(join(tmpdir(), 'docpipe-cursor-'));
    try {
      const client = new HttpClient({ apiKey: SANDBOX_API_KEY, baseUrl: sandbox.url, clock });
      let calls = 0;
      // Every request goes out without its cursor: the server answers the first page again.
      const fetch = () => {
        calls++;
        return fetchAnalyticsPage(client, { metric: 'searches', projectId: 'docs', dateFrom: window.start, dateTo: window.end, cursor: null });
      };
      const sink = new Spool(dir).walk({ metric: 'searches', projectId: 'docs' }, window);
      const context = { metric: 'searches' as const, projectId: 'docs', window, runId: 'r', now: () => clock.now(), requestsSpent: () => calls };
      await expect(walkWindow(fetch, sink, context)).rejects.toThrow(/the API ignores cursor: the page at page 2 of searches/);
      expect(calls).toBe(2);
      expect(sink.pages()).toHaveLength(1);
    } finally {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the sandbox's cursor endpoints under faults and made-up parameters", () => {
  let sandbox: Sandbox;
  const clock = new ManualClock(NOW);
  beforeAll(async () => {
    sandbox = await startSandbox({ now: () => clock.now(), engagement: { searchTermsPerDay: 250, feedbackPerDay: 230, exact: true } });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  beforeEach(() => {
    sandbox.requests.length = 0;
  });
  const get = async (path: string, query: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> => {
    const params = new URLSearchParams({ dateFrom: window.start, dateTo: window.end, ...query });
    const res = await fetch(`${sandbox.url}/v1/analytics/docs/${path}?${params}`, { headers: { authorization: `Bearer ${SANDBOX_API_KEY}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const cursorAt = (o: number): string => Buffer.from(JSON.stringify({ o })).toString('base64url');

  for (const kind of ['ignore-offset', 'shuffle'] as const) {
    it(`a '${kind}' fault makes a cursor endpoint answer its first page again, and the walk stops on it`, async () => {
      sandbox.addFault({ kind, match: { path: '/searches' }, times: Infinity });
      try {
        const dir = mkdtempSync(join(tmpdir(), 'docpipe-cursor-'));
        try {
          const client = new HttpClient({ apiKey: SANDBOX_API_KEY, baseUrl: sandbox.url, clock });
          const fetchPage = (at: PagePosition) =>
            fetchAnalyticsPage(client, { metric: 'searches', projectId: 'docs', dateFrom: window.start, dateTo: window.end, cursor: typeof at === 'string' ? at : null });
          const sink = new Spool(dir).walk({ metric: 'searches', projectId: 'docs' }, window);
          const context = { metric: 'searches' as const, projectId: 'docs', window, runId: 'r', now: () => clock.now(), requestsSpent: () => sandbox.requests.length };
          await expect(walkWindow(fetchPage, sink, context)).rejects.toThrow(/the API ignores cursor/);
          // The second request carried the first page's cursor, and got the first page again.
          expect(sandbox.requests).toHaveLength(2);
          expect(sandbox.requests[1]?.query.cursor).toEqual(expect.any(String));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      } finally {
        sandbox.clearFaults();
      }
    });
  }

  it('a fault an endpoint that does not page cannot show is not used up there', async () => {
    sandbox.addFault({ kind: 'ignore-offset', times: 1 });
    expect((await get('assistant/caller-stats', {})).status).toBe(200);
    // Still there for the next page that can show it: the second page of searches is the first again.
    const first = await get('searches', { limit: '100' });
    sandbox.clearFaults();
    sandbox.addFault({ kind: 'ignore-offset', times: 1 });
    await get('assistant/caller-stats', {});
    const again = await get('searches', { limit: '100', cursor: first.body.nextCursor as string });
    expect(again.body.searches).toEqual(first.body.searches);
    sandbox.clearFaults();
  });

  it("a cursor fault is not used up on a first page (no cursor to ignore): the next page shows it", async () => {
    sandbox.addFault({ kind: 'ignore-offset', match: { path: '/searches' }, times: 1 });
    const first = await get('searches', { limit: '100' });
    const second = await get('searches', { limit: '100', cursor: first.body.nextCursor as string });
    expect(second.body.searches).toEqual(first.body.searches);
    const third = await get('searches', { limit: '100', cursor: first.body.nextCursor as string });
    expect(third.body.searches).not.toEqual(first.body.searches);
    sandbox.clearFaults();
  });

  it('a searches cursor outside the listing is a 400, as any cursor the server did not make', async () => {
    for (const o of [-50, 251, 1.5]) {
      const answer = await get('searches', { cursor: cursorAt(o) });
      expect(answer, `o = ${o}`).toEqual({ status: 400, body: { error: 'Invalid query parameters', details: [{ message: 'cursor is not valid' }] } });
    }
    expect((await get('searches', { cursor: cursorAt(200) })).status).toBe(200);
  });

  it('a parameter an endpoint does not take is ignored, as by the API (offset on a cursor endpoint, limit on caller-stats)', async () => {
    expect((await get('feedback', { offset: '-1' })).status).toBe(200);
    expect((await get('searches', { offset: 'x' })).status).toBe(200);
    expect((await get('assistant/caller-stats', { limit: '100' })).status).toBe(200);
    // A limit an endpoint does take is still checked.
    expect((await get('feedback', { limit: '101' })).status).toBe(400);
  });
});

describe('parseEndpointPage', () => {
  it('an empty cursor is a bad body, not a page to ask for: the window fails, the run goes on', () => {
    const searches = { searches: [], totalSearches: 0, nextCursor: '' };
    expect(() => parseEndpointPage('searches', searches, 'GET /searches')).toThrow(DataError);
    expect(() => parseEndpointPage('searches', searches, 'GET /searches')).toThrow(/nextCursor is empty: expected a cursor, or null on the last page/);
    expect(() => parseEndpointPage('feedback', { feedback: [], nextCursor: '', hasMore: true }, 'GET /feedback')).toThrow(/hasMore is true but nextCursor is empty/);
    expect(parseEndpointPage('searches', { ...searches, nextCursor: null }, 'GET /searches')).toMatchObject({ hasMore: false });
  });
});

describe('nextPosition', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `/r${i}` }));
  it.each([
    ['offset', 0, { totals: {}, rows: rows(250), hasMore: true }, 250],
    ['offset', 250, { totals: {}, rows: rows(10), hasMore: false }, undefined],
    ['cursor', null, { totals: {}, rows: rows(100), hasMore: true, nextCursor: 'c2' }, 'c2'],
    ['cursor', 'c2', { totals: {}, rows: rows(100), hasMore: false, nextCursor: null }, undefined],
    ['cursor-until-null', null, { totals: {}, rows: rows(100), hasMore: true, nextCursor: 'n' }, 'n'],
    ['cursor-until-null', 'n', { totals: {}, rows: rows(100), hasMore: false, nextCursor: null }, undefined],
    ['cursor', 'c', { totals: {}, rows: [], hasMore: true, nextCursor: 'd' }, undefined],
    ['none', null, { totals: {}, rows: rows(100), hasMore: false }, undefined],
  ] as const)('%s at %s', (paging, at, page, next) => {
    expect(nextPosition(paging, at, page)).toBe(next);
  });
});
