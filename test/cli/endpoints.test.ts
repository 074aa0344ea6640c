import { spawnSync } from 'node:child_process';
/**
 * `docpipe export` of the endpoints beyond visitors and views, against the sandbox: each
 * pagination style, the page sizes, the minimum number of requests, atomic window loads and
 * event streams replaced per day window.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/api/endpoints.js';
import type { Metric } from '../../src/core/domain.js';
import { SANDBOX_API_KEY, type SandboxOptions } from '../../src/sandbox/server.js';
import { encodeSegment } from '../../src/spool/spool.js';
import { logLines, startHarness, summaryOf, type Harness, queryDb } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const DAY = ['--from', '2026-03-02', '--to', '2026-03-03'];

/** Requests the sandbox received for exactly this endpoint (not its sub-paths). */
function requestsOf(h: Harness, metric: Metric): { query: Record<string, string> }[] {
  const suffix = `/docs/${ENDPOINTS[metric].path}`;
  return h.sandbox.requests.filter((r) => r.path.endsWith(suffix));
}

async function apiJson(h: Harness, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.sandbox.url}/v1/analytics/docs/${path}`, { headers: { authorization: `Bearer ${SANDBOX_API_KEY}` } });
  return (await res.json()) as Record<string, unknown>;
}

const exact = (shape: { feedbackPerDay?: number; conversationsPerDay?: number; searchTermsPerDay?: number }): SandboxOptions => ({
  site: { paths: 300 },
  engagement: { feedbackPerDay: 0, conversationsPerDay: 0, searchTermsPerDay: 0, exact: true, ...shape },
});

describe('docpipe export of cursor-paged endpoints', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // rows per day and the page size the endpoint takes: ceil(rows / size) requests, no more.
  const cases = [
    { metric: 'feedback', table: 'feedback', shape: { feedbackPerDay: 230 }, rows: 230, size: 100 },
    { metric: 'searches', table: 'searches', shape: { searchTermsPerDay: 250 }, rows: 250, size: 100 },
    { metric: 'assistant', table: 'assistant_conversations', shape: { conversationsPerDay: 2100 }, rows: 2100, size: 1000 },
  ] as const;

  it.each(cases)('$metric: every row in ceil(rows/$size) requests at the largest page, cursor from the second on; a re-run makes none', async (c) => {
    h = await startHarness(NOW, exact(c.shape));
    const first = await h.run(['export', c.metric, '--project', 'docs', ...DAY]);
    expect(first.code, first.stderr).toBe(0);
    const sent = requestsOf(h, c.metric);
    expect(sent).toHaveLength(Math.ceil(c.rows / c.size));
    expect(sent.every((r) => r.query.limit === String(c.size))).toBe(true);
    // The first page has no cursor, every later one the cursor the page before gave.
    expect(sent.map((r) => 'cursor' in r.query)).toEqual(sent.map((_, i) => i > 0));
    expect(summaryOf(first)).toMatchObject({ windowsLoaded: 1, rows: c.rows, requests: sent.length });
    const [stored] = await queryDb<{ n: bigint; distinct_keys: bigint }>(
      h,
      `SELECT count(*) AS n, count(DISTINCT ${c.metric === 'searches' ? 'search_query' : 'id'}) AS distinct_keys FROM ${c.table}`,
    );
    expect(stored).toEqual({ n: BigInt(c.rows), distinct_keys: BigInt(c.rows) });
    const [window] = await queryDb<{ metric: string; row_count: bigint; pages: number; requests: number }>(
      h,
      `SELECT metric, row_count, pages, requests FROM loaded_windows`,
    );
    expect(window).toEqual({ metric: c.metric, row_count: BigInt(c.rows), pages: sent.length, requests: sent.length });

    const again = await h.run(['export', c.metric, '--project', 'docs', ...DAY]);
    expect(again.code).toBe(0);
    expect(requestsOf(h, c.metric)).toHaveLength(sent.length);
    expect(summaryOf(again)).toMatchObject({ windowsSkipped: 1, requests: 0 });
  });

  it.each([
    { metric: 'feedback', shape: { feedbackPerDay: 100 } },
    { metric: 'searches', shape: { searchTermsPerDay: 100 } },
    { metric: 'assistant', shape: { conversationsPerDay: 1000 } },
  ] as const)('$metric: exactly one full page is one request (the last page has a null cursor)', async (c) => {
    h = await startHarness(NOW, exact(c.shape));
    const result = await h.run(['export', c.metric, '--project', 'docs', ...DAY]);
    expect(result.code, result.stderr).toBe(0);
    expect(requestsOf(h, c.metric)).toHaveLength(1);
    expect(summaryOf(result)).toMatchObject({ rows: ENDPOINTS[c.metric].maxLimit });
  });

  it.each(['feedback', 'searches', 'assistant', 'feedback-by-page', 'caller-stats'] as const)(
    '%s: an empty window is one request and a loaded window with no rows',
    async (metric) => {
      h = await startHarness(NOW, exact({}));
      const result = await h.run(['export', metric, '--project', 'docs', ...DAY]);
      expect(result.code, result.stderr).toBe(0);
      expect(requestsOf(h, metric)).toHaveLength(1);
      const rows = await queryDb<{ row_count: bigint; warnings: string[] }>(h, `SELECT row_count, warnings FROM loaded_windows WHERE metric = '${metric}'`);
      // Caller stats always have their one row of counts (zeros here).
      expect(rows).toEqual([{ row_count: metric === 'caller-stats' ? 1n : 0n, warnings: [] }]);
    },
  );

  it('feedback is replaced per day window: a refresh doubles nothing, and the rows are the API\'s', async () => {
    h = await startHarness(NOW, { site: { paths: 300 }, engagement: { feedbackPerDay: 40 } });
    const range = ['--from', '2026-03-02', '--to', '2026-03-05'];
    expect((await h.run(['export', 'feedback', '--project', 'docs', ...range])).code).toBe(0);
    const snapshot = `SELECT id, window_start, path, comment, created_at, source, status, helpful, contact, code, filename, lang FROM feedback ORDER BY id`;
    const before = await queryDb(h, snapshot);
    const refreshed = await h.run(['export', 'feedback', '--project', 'docs', ...range, '--refresh']);
    expect(refreshed.code).toBe(0);
    expect(await queryDb(h, snapshot)).toEqual(before);
    // What the API serves for the middle day, id for id, with the shape-specific fields.
    const api = (await apiJson(h, 'feedback?dateFrom=2026-03-03&dateTo=2026-03-04&limit=100')) as { feedback: { id: string; source: string; code?: string }[] };
    const stored = await queryDb<{ id: string; source: string; code: string | null }>(
      h,
      `SELECT id, source, code FROM feedback WHERE window_start = '2026-03-03' ORDER BY id`,
    );
    expect(stored).toEqual(api.feedback.map((f) => ({ id: f.id, source: f.source, code: f.code ?? null })).sort((a, b) => (a.id < b.id ? -1 : 1)));
    expect(stored.length).toBeGreaterThan(0);
  });

  it('event streams take day windows only', async () => {
    h = await startHarness(NOW);
    const result = await h.run(['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-09', '--window', 'week']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid window \(--window\) 'week' for assistant/);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});

describe('docpipe export of window aggregates', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('searches and caller stats: a week is the sum of its days (counts add up), one row per window', async () => {
    h = await startHarness(NOW, { site: { paths: 300 } });
    const week = ['--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-09'];
    for (const metric of ['searches', 'caller-stats'] as const) {
      expect((await h.run(['export', metric, ...week])).code).toBe(0);
      expect((await h.run(['export', metric, ...week, '--window', 'week'])).code).toBe(0);
    }
    expect(requestsOf(h, 'caller-stats')).toHaveLength(8);
    const totals = await queryDb<{ days: bigint; week: bigint }>(
      h,
      `SELECT sum(total_searches) FILTER (WHERE window_end - window_start = 1) AS days,
              sum(total_searches) FILTER (WHERE window_end - window_start = 7) AS week FROM search_totals`,
    );
    expect(totals[0]?.days).toBe(totals[0]?.week);
    expect(Number(totals[0]?.week)).toBeGreaterThan(0);
    const hits = await queryDb<{ days: bigint; week: bigint }>(
      h,
      `SELECT sum(hits) FILTER (WHERE window_end - window_start = 1) AS days,
              sum(hits) FILTER (WHERE window_end - window_start = 7) AS week FROM searches`,
    );
    expect(hits[0]?.days).toBe(totals[0]?.week);
    const callers = await queryDb<{ span: number; web: bigint; api: bigint; other: bigint; total: bigint }>(
      h,
      `SELECT (window_end - window_start) AS span, sum(web) AS web, sum(api) AS api, sum(other) AS other, sum(total) AS total
         FROM assistant_caller_stats GROUP BY span ORDER BY span`,
    );
    expect(callers).toHaveLength(2);
    expect(callers[0]).toMatchObject({ web: callers[1]?.web, api: callers[1]?.api, other: callers[1]?.other, total: callers[1]?.total });
    const api = (await apiJson(h, 'assistant/caller-stats?dateFrom=2026-03-02&dateTo=2026-03-09')) as { total: number };
    expect(callers[1]?.total).toBe(BigInt(api.total));
  });

  it('odd counts (null, 1e400, negative) and an extra "error": null load, each warned of on its window', async () => {
    h = await startHarness(NOW, { site: { paths: 300 } });
    // Bodies as a server may send them (1e400 is text JSON.stringify cannot write).
    const search = (q: string, hits: string): string => `{"searchQuery":"${q}","hits":${hits},"ctr":0.5,"topClickedPage":null,"lastSearchedAt":"2026-03-02T10:00:00Z"}`;
    const bodies: Record<string, string> = {
      searches: `{"searches":[${search('a', 'null')},${search('b', '1e400')},${search('c', '-3')},${search('d', '2')}],"totalSearches":-3,"nextCursor":null,"error":null}`,
      'feedback/by-page': `{"feedback":[{"path":"/a","thumbsUp":-1,"thumbsDown":null,"code":0,"total":1}],"hasMore":false,"error":null}`,
      'assistant/caller-stats': `{"web":-5,"api":null,"other":1e400,"total":0,"error":null}`,
    };
    for (const [path, body] of Object.entries(bodies)) h.sandbox.addFault({ kind: 'body', match: { path: `/docs/${path}` }, body, times: Infinity });
    for (const metric of ['searches', 'feedback-by-page', 'caller-stats'] as const) {
      const result = await h.run(['export', metric, '--project', 'docs', ...DAY]);
      expect(result.code, result.stderr).toBe(0);
    }
    const warnings = Object.fromEntries(
      (await queryDb<{ metric: string; warnings: string[] }>(h, `SELECT metric, warnings FROM loaded_windows`)).map((r) => [r.metric, r.warnings]),
    );
    expect(warnings).toEqual({
      searches: ['1 row negative', '1 row count_missing (stored as NULL)', '1 row count_out_of_range (stored as NULL)', 'totals negative: totalSearches -3'],
      'feedback-by-page': ['1 row negative', '1 row count_missing (stored as NULL)'],
      'caller-stats': ['totals negative: web -5', 'totals count_missing (stored as NULL): api', 'totals count_out_of_range (stored as NULL): other Infinity'],
    });
    expect(await queryDb(h, `SELECT search_query, hits FROM searches ORDER BY search_query`)).toEqual([
      { search_query: 'a', hits: null },
      { search_query: 'b', hits: null },
      { search_query: 'c', hits: -3n },
      { search_query: 'd', hits: 2n },
    ]);
    expect(await queryDb(h, `SELECT web, api, other, total FROM assistant_caller_stats`)).toEqual([{ web: -5n, api: null, other: null, total: 0n }]);
    expect(await queryDb(h, `SELECT thumbs_up, thumbs_down FROM feedback_by_page`)).toEqual([{ thumbs_up: -1n, thumbs_down: null }]);
  });

  it('feedback by page: one request a window, and a warning when the API says there were more than it returns', async () => {
    h = await startHarness(NOW, { site: { paths: 2000 }, engagement: { feedbackPerDay: 400, exact: true } });
    const result = await h.run(['export', 'feedback-by-page', '--project', 'docs', ...DAY]);
    expect(result.code, result.stderr).toBe(0);
    const sent = requestsOf(h, 'feedback-by-page');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.query.limit).toBe('100');
    const [window] = await queryDb<{ row_count: bigint; warnings: string[] }>(h, `SELECT row_count, warnings FROM loaded_windows`);
    expect(window?.row_count).toBe(100n);
    expect(window?.warnings.join('\n')).toMatch(/says there are more; it has no pagination/);
    const [sum] = await queryDb<{ n: bigint; total: bigint }>(h, `SELECT count(*) AS n, sum(total) AS total FROM feedback_by_page`);
    expect(sum?.n).toBe(100n);
    expect(Number(sum?.total)).toBeLessThan(400); // the rest is out of reach
  });
});

describe('docpipe sync over every endpoint', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('visitors and views go first, then the rest newest first; event streams by day under a weekly pipeline; the budget stop leaves the rest', async () => {
    h = await startHarness(NOW, { site: { paths: 100 } });
    const file = join(h.dir, 'nightly.json');
    writeFileSync(
      file,
      JSON.stringify({
        projects: ['docs'],
        metrics: ['feedback', 'searches', 'visitors', 'views'],
        start: '2026-03-02',
        windows: ['week', 'day'],
        lookbackDays: 2,
      }),
    );
    // 8 day windows (03-02..03-09) and 1 week per aggregate; 8 day windows for feedback.
    const first = await h.run(['sync', file, '--max-requests', '24']);
    expect(first.code).toBe(75);
    const order = h.sandbox.requests.map((r) => `${r.path.split('/').slice(4).join('/')} ${r.query.dateFrom}..${r.query.dateTo}`);
    expect(order).toHaveLength(24);
    // 18 windows of visitors and views (one page each at 100 paths), before anything else.
    expect(order.slice(0, 18).every((line) => /^(visitors|views) /.test(line))).toBe(true);
    expect(order[0]).toBe('visitors 2026-03-02..2026-03-09');
    // Then the other endpoints: the week first (its pages), then the newest days.
    const windowsInOrder = order.slice(18).filter((line, i, all) => line !== all[i - 1]);
    expect(windowsInOrder.slice(0, 3)).toEqual(['searches 2026-03-02..2026-03-09', 'searches 2026-03-09..2026-03-10', 'feedback 2026-03-09..2026-03-10']);
    const feedbackSpans = await queryDb<{ span: bigint }>(h, `SELECT DISTINCT window_end - window_start AS span FROM loaded_windows WHERE metric = 'feedback'`);
    expect(feedbackSpans).toEqual([{ span: 1n }]);

    const rest = await h.run(['sync', file]);
    expect(rest.code, rest.stderr).toBe(0);
    const windows = await queryDb<{ metric: string; n: bigint }>(h, `SELECT metric, count(*) AS n FROM loaded_windows GROUP BY metric ORDER BY metric`);
    expect(windows).toEqual([
      { metric: 'feedback', n: 8n },
      { metric: 'searches', n: 9n },
      { metric: 'views', n: 9n },
      { metric: 'visitors', n: 9n },
    ]);
  });
});

describe('docpipe export assistant --threads', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const threadRequests = (): { path: string; status: number }[] => (h ? h.sandbox.requests.filter((r) => r.path.includes('/assistant/threads/')) : []);

  it('fetches each referenced thread once, keeps what a budget stop received, and resumes without fetching it again', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 30 } });
    const args = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-04', '--threads'];
    // 2 conversation windows, then 5 threads, then the run's budget is spent.
    const first = await h.run([...args, '--max-requests', '7']);
    expect(first.code, first.stderr).toBe(75);
    expect(threadRequests()).toHaveLength(5);
    const [loaded] = await queryDb<{ threads: bigint; messages: bigint }>(
      h,
      `SELECT count(DISTINCT thread_id) AS threads, count(*) AS messages FROM assistant_messages`,
    );
    expect(loaded).toEqual({ threads: 5n, messages: 10n });

    const second = await h.run(args);
    expect(second.code, second.stderr).toBe(0);
    const [referenced] = await queryDb<{ n: bigint }>(h, `SELECT count(DISTINCT thread_id) AS n FROM assistant_conversations WHERE thread_id IS NOT NULL`);
    expect(Number(referenced?.n)).toBeGreaterThan(5);
    // One request per thread in all, none twice.
    const paths = threadRequests().map((r) => r.path);
    expect(paths).toHaveLength(Number(referenced?.n));
    expect(new Set(paths).size).toBe(paths.length);
    const [after] = await queryDb<{ threads: bigint; orphans: bigint }>(
      h,
      `SELECT count(DISTINCT thread_id) AS threads,
              count(*) FILTER (WHERE thread_id NOT IN (SELECT thread_id FROM assistant_conversations WHERE thread_id IS NOT NULL)) AS orphans
         FROM assistant_messages`,
    );
    expect(after).toEqual({ threads: referenced?.n, orphans: 0n });
    const [match] = await queryDb<{ n: bigint }>(
      h,
      `SELECT count(*) AS n FROM assistant_messages m JOIN assistant_conversations c USING (project_id, thread_id)
        WHERE m.role = 'user' AND m.content = c.query`,
    );
    expect(match?.n).toBe(referenced?.n);
    // Each message keeps its place in its thread, as the API listed it: 1, 2, ... the question first.
    const [places] = await queryDb<{ bad: bigint; first_not_question: bigint }>(
      h,
      `SELECT count(*) FILTER (WHERE position IS NULL OR position <> rn) AS bad,
              count(*) FILTER (WHERE position = 1 AND role <> 'user') AS first_not_question
         FROM (SELECT *, row_number() OVER (PARTITION BY project_id, thread_id ORDER BY position) AS rn FROM assistant_messages)`,
    );
    expect(places).toEqual({ bad: 0n, first_not_question: 0n });

    const third = await h.run(args);
    expect(third.code).toBe(0);
    expect(threadRequests()).toHaveLength(paths.length);
    expect(summaryOf(third)).toMatchObject({ requests: 0 });
    // As the API's docs say, a thread is named by a conversation's id (the listing has no
    // threadId): every conversation's thread was asked for by that id.
    const ids = await queryDb<{ id: string }>(h, `SELECT id FROM assistant_conversations ORDER BY id`);
    expect(paths.map((p) => decodeURIComponent(p.split('/threads/')[1]!.split('?')[0]!)).sort()).toEqual(ids.map((r) => r.id));
  });

  it('threads of a conversation window that has not ended wait for a run after its end; one fetched before its window ended is fetched once more', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 40 } });
    const today = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-10', '--to', '2026-03-11', '--threads'];
    const threadsOf = async (): Promise<number> =>
      Number((await queryDb<{ n: bigint }>(h!, `SELECT count(DISTINCT coalesce(thread_id, id)) AS n FROM assistant_conversations`))[0]?.n);
    // 06:00 on the window's day: its transcripts may still grow.
    const first = await h.run(today);
    expect(first.code, first.stderr).toBe(0);
    const early = await threadsOf();
    expect(early).toBeGreaterThan(0);
    expect(threadRequests()).toHaveLength(0);
    expect(summaryOf(first)).toMatchObject({ threads: { threadsPlanned: 0, threadsWaiting: early } });

    // The next morning the window is fetched again (not settled), and its threads once each.
    h.clock.advance(24 * 3600_000);
    const second = await h.run(today);
    expect(second.code, second.stderr).toBe(0);
    const all = await threadsOf();
    expect(all).toBeGreaterThan(early);
    expect(threadRequests()).toHaveLength(all);
    expect(summaryOf(second)).toMatchObject({ threads: { threadsPlanned: all, threadsLoaded: all, threadsWaiting: 0 } });
    // fetched_at is when the body was received, by the run's clock.
    expect(await queryDb(h, `SELECT strftime(fetched_at, '%Y-%m-%dT%H:%M:%SZ') AS at, count(*)::INTEGER AS n FROM assistant_threads GROUP BY ALL`)).toEqual([
      { at: '2026-03-11T06:00:00Z', n: all },
    ]);

    // A transcript fetched before its window ended (as docpipe did before) is fetched once more, and only it.
    const [early1] = await queryDb<{ thread_id: string }>(h, `SELECT thread_id FROM assistant_threads ORDER BY thread_id LIMIT 1`);
    const fix = await h.run(['query', '--write', `UPDATE assistant_threads SET fetched_at = TIMESTAMPTZ '2026-03-10 20:00:00+00' WHERE thread_id = '${early1!.thread_id}'`]);
    expect(fix.code, fix.stderr).toBe(0);
    h.clock.advance(24 * 3600_000);
    const third = await h.run(today);
    expect(third.code, third.stderr).toBe(0);
    expect(threadRequests()).toHaveLength(all + 1);
    expect(threadRequests().at(-1)?.path).toContain(`/threads/${encodeURIComponent(early1!.thread_id)}`);
    expect(summaryOf(third)).toMatchObject({ threads: { threadsPlanned: 1, threadsLoaded: 1 } });
  });

  it('a spool it cannot claim a thread in stops the run with its summary (exit 1), recorded, not taken for crashed', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 10 } });
    const args = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-03'];
    expect((await h.run(args)).code).toBe(0);
    // A file where the project's thread folder goes: no claim can be made (as on a full disk).
    mkdirSync(`${h.db}.spool/threads`, { recursive: true });
    writeFileSync(`${h.db}.spool/threads/docs`, 'not a folder');
    const result = await h.run([...args, '--threads']);
    expect(result.code).toBe(1);
    expect(threadRequests()).toHaveLength(0);
    expect(summaryOf(result)).toMatchObject({ stopped: 'fatal', stopMessage: expect.stringMatching(/^cannot claim thread \S+ in the spool: EEXIST/), threads: { threadsLoaded: 0, threadsSkipped: 0 } });
    expect(await queryDb(h, `SELECT status FROM runs WHERE run_id = '${summaryOf(result).runId as string}'`)).toEqual([{ status: 'fatal' }]);
  });

  it('a thread body a run that is gone spooled after this run planned is loaded from the spool, not fetched again', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 20 } });
    const args = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-03'];
    expect((await h.run(args)).code).toBe(0);
    // The thread this run plans last (newest conversation first).
    const [last] = await queryDb<{ id: string }>(h, `SELECT id FROM assistant_conversations ORDER BY "timestamp" ASC, id DESC LIMIT 1`);
    const threadId = last!.id;
    h.sandbox.addFault({ kind: 'slow', match: { path: '/threads/' }, delayMs: 150, times: Infinity });
    const run = h.run([...args, '--threads']);
    while (threadRequests().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // Another docpipe process claims that thread, spools its body, and is killed before it loads it.
    const dist = join(process.cwd(), 'dist');
    const body = JSON.stringify({ body: { threadId, createdAt: '2026-03-02T10:00:00Z', messages: [
      { id: 'm1', role: 'user', content: 'asked in the run that died', createdAt: '2026-03-02T10:00:00Z' },
    ] } });
    const script = `
      const { Spool, spoolDirFor, encodeSegment, writeFileAtomic } = await import(${JSON.stringify(join(dist, 'spool/spool.js'))});
      const { claimOf, threadsDir } = await import(${JSON.stringify(join(dist, 'spool/thread-spool.js'))});
      const { join } = await import('node:path');
      const spool = new Spool(spoolDirFor(${JSON.stringify(h.db)}));
      const file = join(threadsDir(spool, 'docs'), encodeSegment(${JSON.stringify(threadId)}) + '.jsonl');
      if (!claimOf(spool, file).take()) process.exit(3);
      writeFileAtomic(file, ${JSON.stringify(body + '\n')});
      process.kill(process.pid, 'SIGKILL');`;
    const dead = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(dead.signal, dead.stderr).toBe('SIGKILL');
    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    expect(threadRequests().filter((r) => r.path.includes(`/threads/${encodeURIComponent(threadId)}`))).toEqual([]);
    const messages = await queryDb<{ content: string }>(h, `SELECT content FROM assistant_messages WHERE thread_id = '${threadId}'`);
    expect(messages).toEqual([{ content: 'asked in the run that died' }]);
    expect(summaryOf(result)).toMatchObject({ threads: { threadsFromSpool: 1 } });
  });

  it('a thread the API does not have (404) or refuses as an invalid id (400) is recorded as not found and not asked for again; another failure is named', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 20 } });
    const args = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-03', '--threads'];
    h.sandbox.addFault({ kind: 'body', status: 404, match: { path: '/threads/' }, body: '{"error":"Thread not found"}', times: 2 });
    h.sandbox.addFault({ kind: 'body', status: 400, match: { path: '/threads/' }, body: '{"error":"Invalid thread ID"}', times: 1 });
    h.sandbox.addFault({ kind: 'body', status: 422, match: { path: '/threads/' }, body: '{"error":"Unprocessable"}', times: 1 });
    const first = await h.run(args);
    expect(first.code).toBe(1); // the 422
    const fetched = threadRequests().length;
    expect(fetched).toBeGreaterThan(4);
    expect(summaryOf(first)).toMatchObject({ threads: { threadsPlanned: fetched, threadsLoaded: fetched - 1, threadsFailed: 1 } });
    const failed = logLines(first).filter((l) => l.event === 'thread failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 'error', project: 'docs', thread: expect.any(String), error: expect.stringMatching(/HTTP 422.*Unprocessable/) });
    expect(await queryDb(h, `SELECT not_found, message_count::INTEGER AS n, count(*)::INTEGER AS threads FROM assistant_threads GROUP BY ALL ORDER BY 1`)).toEqual([
      { not_found: false, n: 2, threads: fetched - 4 },
      { not_found: true, n: 0, threads: 3 },
    ]);
    // Only the thread that failed is asked for again.
    const again = await h.run(args);
    expect(again.code, again.stderr).toBe(0);
    expect(threadRequests()).toHaveLength(fetched + 1);
    expect(threadRequests().at(-1)?.path).toBe(threadRequests().find((r) => r.status === 422)?.path);
    // A refresh answered 404 keeps every transcript stored: each such thread fails, named, and
    // five failing in a row stop the run (exit 75) instead of spending a request on every one.
    const [before] = await queryDb<{ n: bigint }>(h, `SELECT count(*) AS n FROM assistant_messages`);
    h.sandbox.addFault({ kind: 'body', status: 404, match: { path: '/threads/' }, body: '{"error":"Thread not found"}', times: Infinity });
    const asked = threadRequests().length;
    const refreshed = await h.run([...args, '--refresh']);
    expect(refreshed.code).toBe(75);
    expect(await queryDb(h, `SELECT count(*) AS n FROM assistant_messages`)).toEqual([before]);
    const withMessages = fetched - 3;
    expect(withMessages).toBeGreaterThan(5);
    expect(logLines(refreshed).filter((l) => l.event === 'thread failed')).toHaveLength(5);
    // The five, and at most the three threads the API never had (asked again by --refresh, answered 404 as before).
    expect(threadRequests().length).toBeLessThanOrEqual(asked + 5 + 3);
    expect(summaryOf(refreshed)).toMatchObject({ threads: { threadsFailed: 5, threadsLeft: withMessages - 5, stopped: 'failing' } });
    expect(String((summaryOf(refreshed).threads as { stopMessage: string }).stopMessage)).toMatch(/^5 threads in a row failed \(last: GET .*HTTP 404.*Thread not found.*\); stopped to keep the rest of the hour's request budget for the next run$/);
  });

  it('a thread that held no message is recorded as fetched, and not asked for again', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 5 } });
    const args = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-03', '--threads'];
    h.sandbox.addFault({ kind: 'patch', match: { path: '/threads/' }, patch: { messages: [] }, times: 1 });
    const first = await h.run(args);
    expect(first.code, first.stderr).toBe(0);
    const fetched = threadRequests().length;
    expect(fetched).toBeGreaterThan(1);
    expect(await queryDb(h, `SELECT message_count::INTEGER AS n, count(*)::INTEGER AS threads FROM assistant_threads GROUP BY 1 ORDER BY 1`)).toEqual([
      { n: 0, threads: 1 },
      { n: 2, threads: fetched - 1 },
    ]);
    const again = await h.run(args);
    expect(again.code, again.stderr).toBe(0);
    expect(threadRequests()).toHaveLength(fetched);
    expect(summaryOf(again)).toMatchObject({ requests: 0 });
  });

  it('two runs at once in one process fetch each thread once, and both exit 0', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 60 } });
    const base = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-06'];
    expect((await h.run(base)).code).toBe(0);
    // Each thread is claimed (`<id>.claim` beside its body) until it is loaded: the other run
    // skips it. Before, one run loaded the other's bodies and removed them under it (exit 1).
    const args = [...base, '--threads', '--requests-per-hour', '100000'];
    const [a, b] = await Promise.all([h.run(args), h.run(args)]);
    expect([a.code, b.code], `${a.stdout}\n${b.stdout}`).toEqual([0, 0]);
    const [referenced] = await queryDb<{ n: bigint }>(h, `SELECT count(DISTINCT thread_id) AS n FROM assistant_conversations WHERE thread_id IS NOT NULL`);
    const paths = threadRequests().map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toHaveLength(Number(referenced?.n));
    const [loaded] = await queryDb<{ n: bigint }>(h, `SELECT count(DISTINCT thread_id) AS n FROM assistant_messages`);
    expect(loaded?.n).toBe(referenced?.n);
    // Nothing is left in the spool: no body, no claim.
    expect(readdirSync(join(`${h.db}.spool`, 'threads', 'docs'))).toEqual([]);
    // Each run accounts for every thread it planned: the other's are left to it.
    for (const run of [a, b]) {
      const t = summaryOf(run).threads as { threadsPlanned: number; threadsLoaded: number; threadsFailed: number; threadsSkipped: number; threadsLeft: number };
      expect(t.threadsLoaded + t.threadsFailed + t.threadsSkipped + t.threadsLeft).toBe(t.threadsPlanned);
    }
  });

  it('--refresh: a run that another overtook does not fetch again the threads the other refreshed after its plan', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 15 } });
    const base = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-04', '--threads', '--requests-per-hour', '1000'];
    expect((await h.run(base)).code).toBe(0);
    const threads = threadRequests().length;
    // Another process (this one's parent) journals requests in the spool: runs overlap.
    mkdirSync(join(`${h.db}.spool`, 'requests'), { recursive: true });
    writeFileSync(join(`${h.db}.spool`, 'requests', `${process.ppid}-other.jsonl`), '');
    // The first run's first thread is slow (held until the second run is done, however slow the
    // machine); meanwhile a second run refreshes every other thread.
    // (Its request must not time out meanwhile: tried again, the thread would be fetched twice.)
    h.sandbox.addFault({ kind: 'slow', match: { path: '/threads/' }, delayMs: 120_000, times: 1 });
    const first = h.run([...base, '--refresh'], { httpTimeoutMs: 180_000 });
    while (threadRequests().length === threads) await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await h.run([...base, '--refresh']);
    expect(second.code, second.stdout).toBe(0);
    h.sandbox.releaseDelays();
    const result = await first;
    expect(result.code, result.stdout).toBe(0);
    // Each thread was refreshed once: the first run's first thread by it, the rest by the second.
    expect(threadRequests()).toHaveLength(2 * threads);
    const byRun = await queryDb<{ n: bigint }>(h, `SELECT count(DISTINCT thread_id) AS n FROM assistant_messages GROUP BY run_id ORDER BY n`);
    expect(byRun).toEqual([{ n: 1n }, { n: BigInt(threads - 1) }]);
  });

  it('a thread claim whose fetch never ended is dropped; one a live process holds keeps the thread from this run', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 30 } });
    const base = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-04'];
    expect((await h.run(base)).code).toBe(0);
    const ids = (await queryDb<{ id: string }>(h, `SELECT DISTINCT thread_id AS id FROM assistant_conversations WHERE thread_id IS NOT NULL ORDER BY 1 LIMIT 2`)).map((r) => r.id);
    const dir = join(`${h.db}.spool`, 'threads', 'docs');
    mkdirSync(dir, { recursive: true });
    const claim = (id: string): string => join(dir, `${encodeSegment(id)}.claim`);
    writeFileSync(claim(ids[0]!), `${JSON.stringify({ owner: { pid: 999_999, host: hostname() } })}\n`);
    writeFileSync(claim(ids[1]!), `${JSON.stringify({ owner: { pid: process.ppid, host: hostname() } })}\n`);
    const result = await h.run([...base, '--threads']);
    expect(result.code, result.stdout).toBe(0);
    expect(existsSync(claim(ids[0]!))).toBe(false);
    expect(existsSync(claim(ids[1]!))).toBe(true);
    const fetched = threadRequests().map((r) => decodeURIComponent(r.path.split('/threads/')[1] ?? ''));
    expect(fetched).toContain(ids[0]);
    expect(fetched).not.toContain(ids[1]);
  });

  it('a thread another run took over while this one was stopped is left to it: no body written, nothing loaded', async () => {
    h = await startHarness(NOW, { site: { paths: 100 }, engagement: { conversationsPerDay: 30 } });
    const base = ['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-04'];
    expect((await h.run(base)).code).toBe(0);
    // The first thread's request is slow; meanwhile another run (a pod that found this one's
    // heartbeat stale) takes its claim over.
    h.sandbox.addFault({ kind: 'slow', match: { path: '/threads/' }, delayMs: 1_500, times: 1 });
    const first = h.run([...base, '--threads']);
    while (threadRequests().length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const id = decodeURIComponent(threadRequests()[0]!.path.split('/threads/')[1] ?? '');
    const claim = join(`${h.db}.spool`, 'threads', 'docs', `${encodeSegment(id)}.claim`);
    const pod = { pid: 1, host: `pod-${process.pid}`, start: '4242.0badc0de.4026531999' };
    writeFileSync(claim, `${JSON.stringify({ owner: pod })}\n`);
    const result = await first;
    expect(result.code, result.stdout).toBe(0);
    expect(readFileSync(claim, 'utf8')).toContain('"host":"pod-');
    expect(existsSync(claim.replace(/\.claim$/, '.jsonl'))).toBe(false);
    expect(await queryDb(h, `SELECT count(*) AS n FROM assistant_messages WHERE thread_id = '${id.replace(/'/g, "''")}'`)).toEqual([{ n: 0n }]);
    // Every other thread was loaded.
    const loaded = await queryDb<{ n: bigint }>(h, `SELECT count(DISTINCT thread_id) AS n FROM assistant_messages`);
    expect(Number(loaded[0]!.n)).toBe(threadRequests().length - 1);
  });

  it('is refused for other endpoints', async () => {
    h = await startHarness(NOW);
    const result = await h.run(['export', 'feedback', '--project', 'docs', ...DAY, '--threads']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/threads \(--threads\) are for 'export assistant', not 'feedback'/);
  });
});
