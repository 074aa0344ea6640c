import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import {
  NOW,
  addDays,
  analyticsPath,
  byPath,
  getJson,
  getPage,
  walkWindow,
  type Counts,
  type Row,
} from './helpers.js';

const TODAY = '2026-03-15';
/** A Monday-to-Sunday week well in the past (settled). */
const WEEK = '2026-02-02';

function expectUniqueInvariants(counts: Counts, where: string): void {
  for (const key of ['human', 'ai', 'total'] as const) {
    expect(Number.isInteger(counts[key]), `${where}.${key} integer`).toBe(true);
    expect(counts[key], `${where}.${key} >= 0`).toBeGreaterThanOrEqual(0);
  }
  expect(counts.total, where).toBeGreaterThanOrEqual(Math.max(counts.human, counts.ai));
  expect(counts.total, where).toBeLessThanOrEqual(counts.human + counts.ai);
}

describe('sandbox analytics', () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await startSandbox({ now: () => NOW });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('rejects a missing or wrong key with a JSON 401', async () => {
    const path = analyticsPath('visitors', WEEK, addDays(WEEK, 7));
    const none = await fetch(`${sandbox.url}${path}`);
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toMatch(/application\/json/);
    expect(await none.json()).toEqual({ error: 'Unauthorized' });
    const wrong = await fetch(`${sandbox.url}${path}`, { headers: { authorization: 'Bearer mint_wrong' } });
    expect(wrong.status).toBe(401);
    const bare = await fetch(`${sandbox.url}${path}`, { headers: { authorization: sandbox.apiKey } });
    expect(bare.status).toBe(401);
  });

  it('keeps every request for tests to read, and none when told not to (a long-running server)', async () => {
    const path = analyticsPath('visitors', WEEK, addDays(WEEK, 1));
    const before = sandbox.requests.length;
    expect((await getJson(sandbox, path)).status).toBe(200);
    expect(sandbox.requests.slice(before)).toMatchObject([{ method: 'GET', status: 200, query: { dateFrom: WEEK } }]);
    const quiet = await startSandbox({ now: () => NOW, recordRequests: false });
    try {
      expect((await getJson(quiet, path)).status).toBe(200);
      expect(quiet.requests).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  it('answers an unknown route with a JSON 404', async () => {
    for (const path of ['/v1/analytics/acme/searchez', '/v3/whatever', '/', '/v2/agent/acme/jobs']) {
      const { status, body } = await getJson(sandbox, path);
      expect(status, path).toBe(404);
      expect(body, path).toHaveProperty('error');
    }
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=251', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['dateFrom=yesterday', 'dateFrom'],
    ['dateTo=2026-02-30', 'dateTo'],
    ['dateFrom=2026-03-02&dateTo=2026-03-02', 'dateFrom'],
    ['dateFrom=2026-03-05&dateTo=2026-03-02', 'dateFrom'],
  ])('rejects %s with a 400 and details', async (query, word) => {
    const { status, body } = await getJson(sandbox, `/v1/analytics/acme/visitors?${query}`);
    expect(status).toBe(400);
    const error = body as { error: string; details: { message: string }[] };
    expect(error.error).toBe('Invalid query parameters');
    expect(error.details.length).toBeGreaterThan(0);
    expect(error.details.map((d) => d.message).join(' ')).toContain(word);
  });

  it('applies the documented defaults: limit 50, the last 30 days up to now', async () => {
    const defaults = await getJson(sandbox, '/v1/analytics/acme/visitors');
    const explicit = await getJson(sandbox, analyticsPath('visitors', addDays(TODAY, -29), addDays(TODAY, 1), { limit: 50 }));
    expect(defaults.status).toBe(200);
    expect((defaults.body as { visitors: Row[] }).visitors).toHaveLength(50);
    expect(defaults.body).toEqual(explicit.body);
    // Only dateTo given: the 30 days before it.
    const toOnly = await getJson(sandbox, `/v1/analytics/acme/visitors?dateTo=${WEEK}&limit=50`);
    const toOnlyExplicit = await getJson(sandbox, analyticsPath('visitors', addDays(WEEK, -30), WEEK, { limit: 50 }));
    expect(toOnly.body).toEqual(toOnlyExplicit.body);
  });

  it('accepts ISO 8601 date-times as UTC calendar days', async () => {
    const plain = await getPage(sandbox, 'visitors', WEEK, addDays(WEEK, 7));
    const iso = await getPage(sandbox, 'visitors', `${WEEK}T00:00:00Z`, `${addDays(WEEK, 7)}T00:00:00.000Z`);
    expect(iso).toEqual(plain);
    const offset = await getPage(sandbox, 'visitors', `${WEEK}T01:00:00+01:00`, `${addDays(WEEK, 7)}T00:30:00+00:00`);
    expect(offset).toEqual(plain);
  });

  it('pages a window with limit 250: every row exactly once, hasMore false on the last page', async () => {
    const from = '2026-01-01';
    const to = '2026-02-01';
    const { pages, rows, totals } = await walkWindow(sandbox, 'visitors', from, to);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.slice(0, -1).every((p) => p.hasMore && p.rows.length === 250)).toBe(true);
    expect(pages.at(-1)?.hasMore).toBe(false);
    expect(new Set(rows.map((r) => r.path)).size).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(250);
    expect(rows.length).toBeLessThanOrEqual(300);
    for (const page of pages) expect(page.totals).toEqual(totals);
    // A page past the end is empty and final.
    const past = await getPage(sandbox, 'visitors', from, to, { offset: rows.length + 10 });
    expect(past.rows).toEqual([]);
    expect(past.hasMore).toBe(false);
    // The order is stable: small pages give the same sequence.
    const small = await walkWindow(sandbox, 'visitors', from, to, { limit: 37 });
    expect(small.rows).toEqual(rows);
  });

  it('orders rows by total desc then path asc and leaves out empty rows', async () => {
    for (const metric of ['visitors', 'views'] as const) {
      const { rows } = await walkWindow(sandbox, metric, '2026-03-07', '2026-03-08');
      expect(rows.length).toBeGreaterThan(0);
      for (let i = 1; i < rows.length; i++) {
        const a = rows[i - 1] as Row;
        const b = rows[i] as Row;
        expect(a.total > b.total || (a.total === b.total && a.path < b.path), `${a.path} before ${b.path}`).toBe(true);
      }
      expect(rows.every((r) => r.total > 0)).toBe(true);
    }
  });

  it('looks like a documentation site: realistic paths and a long tail', async () => {
    const { rows } = await walkWindow(sandbox, 'visitors', '2026-01-01', '2026-02-01');
    const paths = rows.map((r) => r.path);
    expect(paths).toContain('/quickstart');
    expect(paths.some((p) => p.startsWith('/api-reference/'))).toBe(true);
    expect(paths.some((p) => p.startsWith('/guides/'))).toBe(true);
    expect(paths.every((p) => /^\/[a-z0-9/-]+$/.test(p))).toBe(true);
    // Zipf-like: the top page has far more than the median one.
    const top = rows[0]?.total ?? 0;
    const median = rows[Math.floor(rows.length / 2)]?.total ?? 0;
    expect(top).toBeGreaterThan(median * 20);
    // Without a floor, some pages have days without any visitor.
    const saturday = await walkWindow(sandbox, 'visitors', '2026-03-07', '2026-03-08');
    expect(saturday.rows.length).toBeLessThan(300);
  });

  it('treats dateTo as exclusive', async () => {
    const day = '2026-02-10';
    const oneDay = await walkWindow(sandbox, 'visitors', day, addDays(day, 1));
    const twoDays = await walkWindow(sandbox, 'visitors', day, addDays(day, 2));
    const nextDay = await walkWindow(sandbox, 'visitors', addDays(day, 1), addDays(day, 2));
    expect(oneDay.rows).not.toEqual(twoDays.rows);
    expect(oneDay.totals).not.toEqual(twoDays.totals);
    expect(twoDays.totals.total).toBeGreaterThan(oneDay.totals.total);
    expect(twoDays.totals.total).toBeGreaterThan(nextDay.totals.total);
    // Views add up, so two days are exactly one day plus the next.
    const views1 = await walkWindow(sandbox, 'views', day, addDays(day, 1));
    const views2 = await walkWindow(sandbox, 'views', addDays(day, 1), addDays(day, 2));
    const viewsBoth = await walkWindow(sandbox, 'views', day, addDays(day, 2));
    expect(viewsBoth.totals.total).toBe(views1.totals.total + views2.totals.total);
  });

  it.each([
    ['day', '2026-02-03', 1],
    ['week', WEEK, 7],
    ['month', '2026-01-01', 31],
    ['quarter', '2025-10-01', 92],
  ])('keeps max(human, ai) <= total <= human + ai on every %s row and on totals', async (_name, from, days) => {
    const { rows, totals } = await walkWindow(sandbox, 'visitors', from, addDays(from, days));
    for (const row of rows) expectUniqueInvariants(row, row.path);
    expectUniqueInvariants(totals, 'totals');
    // The overlap pool makes total a little below human + ai, but not everywhere.
    expect(totals.total).toBeLessThan(totals.human + totals.ai);
    expect(rows.some((r) => r.total < r.human + r.ai)).toBe(true);
    // Site visitors read several pages: the site's uniques are below the sum of the pages'.
    const pageSum = rows.reduce((sum, r) => sum + r.total, 0);
    expect(totals.total).toBeLessThan(pageSum);
    expect(totals.total).toBeGreaterThanOrEqual(Math.max(...rows.map((r) => r.total)));
  });

  it("keeps a week's uniques between its largest day and the sum of its days", async () => {
    const week = await walkWindow(sandbox, 'visitors', WEEK, addDays(WEEK, 7));
    const days = await Promise.all(
      Array.from({ length: 7 }, (_, i) => walkWindow(sandbox, 'visitors', addDays(WEEK, i), addDays(WEEK, i + 1))),
    );
    const dayMaps = days.map((d) => byPath(d.rows));
    const zero: Counts = { human: 0, ai: 0, total: 0 };
    let strictlyBetween = 0;
    for (const row of week.rows) {
      const perDay = dayMaps.map((m) => m.get(row.path) ?? zero);
      for (const key of ['human', 'ai', 'total'] as const) {
        const values = perDay.map((c) => c[key]);
        expect(row[key], `${row.path}.${key}`).toBeGreaterThanOrEqual(Math.max(...values));
        expect(row[key], `${row.path}.${key}`).toBeLessThanOrEqual(values.reduce((a, b) => a + b, 0));
        if (row[key] > Math.max(...values) && row[key] < values.reduce((a, b) => a + b, 0)) strictlyBetween++;
      }
    }
    // Not additive: most week counts lie strictly between the bounds.
    expect(strictlyBetween).toBeGreaterThan(week.rows.length);
    // A path with traffic on any day is in the week, and vice versa.
    const dayPaths = new Set(days.flatMap((d) => d.rows.map((r) => r.path)));
    expect(new Set(week.rows.map((r) => r.path))).toEqual(dayPaths);
    for (const key of ['human', 'ai', 'total'] as const) {
      const values = days.map((d) => d.totals[key]);
      expect(week.totals[key]).toBeGreaterThan(Math.max(...values));
      expect(week.totals[key]).toBeLessThan(values.reduce((a, b) => a + b, 0));
    }
  });

  it("makes views additive: a week's views are the sum of its days", async () => {
    const week = await walkWindow(sandbox, 'views', WEEK, addDays(WEEK, 7));
    const days = await Promise.all(
      Array.from({ length: 7 }, (_, i) => walkWindow(sandbox, 'views', addDays(WEEK, i), addDays(WEEK, i + 1))),
    );
    const dayMaps = days.map((d) => byPath(d.rows));
    for (const row of week.rows) {
      expect(row.total).toBe(row.human + row.ai);
      for (const key of ['human', 'ai', 'total'] as const) {
        const sum = dayMaps.reduce((acc, m) => acc + (m.get(row.path)?.[key] ?? 0), 0);
        expect(row[key], `${row.path}.${key}`).toBe(sum);
      }
    }
    for (const key of ['human', 'ai', 'total'] as const) {
      expect(week.totals[key]).toBe(days.reduce((acc, d) => acc + d.totals[key], 0));
    }
    // Site views are the sum of page views; views are at least the visitors.
    expect(week.totals.total).toBe(week.rows.reduce((acc, r) => acc + r.total, 0));
    const visitors = await walkWindow(sandbox, 'visitors', WEEK, addDays(WEEK, 7));
    const views = byPath(week.rows);
    for (const row of visitors.rows) {
      expect(views.get(row.path)?.human ?? 0).toBeGreaterThanOrEqual(row.human);
    }
  });

  it('has weekday rhythm: weekends are quieter for humans', async () => {
    const weekdays: number[] = [];
    const weekends: number[] = [];
    for (let i = 0; i < 14; i++) {
      const day = addDays(WEEK, i);
      const page = await getPage(sandbox, 'visitors', day, addDays(day, 1), { limit: 1 });
      (i % 7 >= 5 ? weekends : weekdays).push(page.totals.human);
    }
    expect(Math.min(...weekdays)).toBeGreaterThan(Math.max(...weekends) * 1.4);
  });

  it('has a growing share of AI traffic', async () => {
    const share = (c: Counts): number => c.ai / c.total;
    const before = await getPage(sandbox, 'visitors', '2025-03-01', '2025-04-01', { limit: 1 });
    const after = await getPage(sandbox, 'visitors', '2026-02-01', '2026-03-01', { limit: 1 });
    expect(share(after.totals)).toBeGreaterThan(share(before.totals) * 1.3);
  });

  it('has no data for future days and only part of today', async () => {
    for (const metric of ['visitors', 'views'] as const) {
      const future = await getPage(sandbox, metric, addDays(TODAY, 1), addDays(TODAY, 8));
      expect(future).toEqual({ totals: { human: 0, ai: 0, total: 0 }, rows: [], hasMore: false });
    }
    const today = await getPage(sandbox, 'visitors', TODAY, addDays(TODAY, 1), { limit: 1 });
    const lastSunday = await getPage(sandbox, 'visitors', addDays(TODAY, -7), addDays(TODAY, -6), { limit: 1 });
    expect(today.totals.total).toBeGreaterThan(0);
    expect(today.totals.total).toBeLessThan(lastSunday.totals.total * 0.75);
    // A window reaching into the future counts only what has happened.
    const spanning = await getPage(sandbox, 'views', addDays(TODAY, -1), addDays(TODAY, 5), { limit: 1 });
    const upToNow = await getPage(sandbox, 'views', addDays(TODAY, -1), addDays(TODAY, 1), { limit: 1 });
    expect(spanning.totals).toEqual(upToNow.totals);
  });

  it('lets recent days grow to their final value as time passes', async () => {
    let now = NOW;
    const moving = await startSandbox({ now: () => now });
    try {
      const read = async (from: string): Promise<Counts> =>
        (await walkWindow(moving, 'views', from, addDays(from, 1))).totals;
      const todayEarly = await read(TODAY);
      const yesterdayEarly = await read(addDays(TODAY, -1));
      now += 6 * 3_600_000;
      const todayLater = await read(TODAY);
      expect(todayLater.total).toBeGreaterThan(todayEarly.total);
      now += 3 * 86_400_000;
      const yesterdayFinal = await read(addDays(TODAY, -1));
      expect(yesterdayFinal.total).toBeGreaterThan(yesterdayEarly.total);
      expect(yesterdayFinal.total).toBeLessThan(yesterdayEarly.total * 1.1);
      // Settled days do not move any more.
      now += 30 * 86_400_000;
      expect(await read(addDays(TODAY, -1))).toEqual(yesterdayFinal);
    } finally {
      await moving.close();
    }
  });

  it('is deterministic per seed and project', async () => {
    const twin = await startSandbox({ now: () => NOW });
    const other = await startSandbox({ now: () => NOW, seed: 7 });
    try {
      for (const metric of ['visitors', 'views'] as const) {
        const mine = await walkWindow(sandbox, metric, WEEK, addDays(WEEK, 7));
        expect(await walkWindow(twin, metric, WEEK, addDays(WEEK, 7))).toEqual(mine);
        expect((await walkWindow(other, metric, WEEK, addDays(WEEK, 7))).totals).not.toEqual(mine.totals);
        const otherProject = await walkWindow(sandbox, metric, WEEK, addDays(WEEK, 7), { project: 'globex' });
        expect(otherProject.totals).not.toEqual(mine.totals);
      }
    } finally {
      await twin.close();
      await other.close();
    }
  });
});

describe('sandbox analytics at benchmark scale', () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await startSandbox({ now: () => NOW, site: { paths: 6000, minDailyVisitors: 3 } });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('gives every path a row every day with minDailyVisitors, the same rows when walked again', async () => {
    const day = '2026-02-07'; // a Saturday, the quietest kind of day
    const first = await walkWindow(sandbox, 'visitors', day, addDays(day, 1));
    expect(first.rows).toHaveLength(6000);
    expect(first.pages).toHaveLength(24);
    expect(first.rows.every((r) => r.human >= 3)).toBe(true);
    // From the listing cache (data-model.test.ts); how fast is npm run bench's to say.
    const again = await walkWindow(sandbox, 'visitors', day, addDays(day, 1));
    expect(again.rows).toEqual(first.rows);
  });
});
