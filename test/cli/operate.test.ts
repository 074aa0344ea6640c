/**
 * Operating under a tight budget: a failing API cannot eat the hour, `--wait` carries a
 * backfill across budget hours, several grains go coarse first, and `sync` takes its
 * projects from the command line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLOT_MARGIN_MS } from '../../src/api/request-budget.js';
import { readPipeline } from '../../src/lib/analytics.js';
import { logLines, startHarness, summaryOf, type Harness, asText } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const HOUR = 3_600_000;
const WEEK = ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08'];

describe('a failing API does not eat the hour', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 400 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it.each([
    ['404 (a project the API does not know)', { kind: 'body' as const, status: 404, body: '{"error":"Project not found"}' }],
    ['301 (an API that moved)', { kind: 'body' as const, status: 301, body: '' }],
    ['a body the schema does not take', { kind: 'body' as const, status: 200, body: '{"totals":{"human":1,"ai":0,"total":1},"visitors":"none","hasMore":false}' }],
  ])('stops after five windows in a row fail alike, with exit 75 and the last failure named: %s', async (_name, fault) => {
    h.sandbox.addFault({ ...fault, match: { path: '/visitors' }, times: Infinity });
    const result = await h.run(WEEK);
    expect(result.code).toBe(75);
    // One request a window (none of these is retried): five, not one for each of the seven.
    expect(h.requests('/visitors')).toBe(5);
    expect(summaryOf(result)).toMatchObject({ stopped: 'failing', windowsFailed: 5, windowsLeft: 2, windowsLoaded: 0 });
    expect(String(summaryOf(result).stopMessage)).toMatch(
      /^5 windows in a row failed \(last: GET \/v1\/analytics\/docs\/visitors.*\); stopped to keep the rest of the hour's request budget for the next run$/,
    );
    // A window that loads in between starts the count over.
    h.sandbox.clearFaults();
    h.sandbox.addFault({ ...fault, match: { path: '/visitors' }, times: 4 });
    const again = await h.run(WEEK);
    expect(summaryOf(again)).toMatchObject({ windowsFailed: 4, stopped: null });
  });

  it('a project whose every window fails (a mistyped id) is left after five, while another project goes on: its windows alternate with the good ones', async () => {
    h.sandbox.addFault({ kind: 'body', status: 404, body: '{"error":"Project not found"}', match: { path: '/v1/analytics/typo/' }, times: Infinity });
    const result = await h.run(['export', 'visitors', '--project', 'docs,typo', '--from', '2026-03-01', '--to', '2026-03-09']);
    // Eight windows each: the good project's all loaded; the other's five failed, three left; exit 1 (failed windows).
    expect(result.code).toBe(1);
    expect(h.sandbox.requests.filter((r) => r.path.includes('/typo/'))).toHaveLength(5);
    expect(summaryOf(result)).toMatchObject({ stopped: null, windowsLoaded: 8, windowsFailed: 5, windowsLeft: 3 });
    const failed = logLines(result).filter((l) => l.event === 'window failed');
    expect(String(failed.at(-1)?.error)).toMatch(/^GET \/v1\/analytics\/typo\/visitors.*HTTP 404[^;]*; 5 windows of project typo in a row failed: its other windows are left for the next run$/);
  });

  it.each([
    ['500 on everything', { kind: 'server-error' as const }],
    ['503 without Retry-After on everything', { kind: 'server-error' as const, status: 503 }],
    ['dropped connections on everything', { kind: 'drop' as const }],
    // A 200 whose body is no answer (a login or captive-portal page) fails as surely as a 500.
    ['200 with an HTML page on everything', { kind: 'body' as const, status: 200, body: '<html><body>Sign in</body></html>' }],
  ])('stops after failures in a row with exit 75: %s', async (_name, fault) => {
    h.sandbox.addFault({ ...fault, match: { path: '/visitors' }, times: Infinity });
    const result = await h.run(WEEK);
    expect(result.code).toBe(75);
    expect(h.requests('/visitors')).toBeLessThanOrEqual(20);
    const summary = summaryOf(result);
    expect(summary).toMatchObject({ stopped: 'failing', windowsLoaded: 0 });
    expect(String(summary.stopMessage)).toMatch(/the API failed 8 requests in a row \(last: (HTTP 50[03]|no response \(timeout or connection error\)|HTTP 200 with a body that is not an answer)\); stopped to keep the rest of the hour's request budget/);
    // Every retry was logged, with its wait.
    const retries = logLines(result).filter((l) => l.event === 'retrying request');
    expect(retries.length).toBeGreaterThan(0);
    for (const line of retries) expect(line).toMatchObject({ wait: 'backoff', wait_ms: expect.any(Number), attempt: expect.any(Number) });
    // The budget not spent is there for the next run: the request log holds only what was sent.
    expect(summary.requests).toBe(h.requests('/visitors'));
  });

  it('bounds the Retry-After waits of one request: a storm of 429s stops the run with exit 75', async () => {
    h.sandbox.addFault({ kind: 'rate-limit', match: { path: '/visitors' }, retryAfter: '1', times: Infinity });
    const result = await h.run(WEEK);
    expect(result.code).toBe(75);
    expect(h.requests('/visitors')).toBeLessThanOrEqual(20);
    expect(h.clock.sleeps).toEqual([1000, 1000, 1000, 1000, 1000]); // 5 waits, then the run stops
    const waits = logLines(result).filter((l) => l.event === 'retrying request');
    expect(waits.map((l) => [l.status, l.wait, l.wait_ms])).toEqual(Array(5).fill([429, 'retry-after', 1000]));
    expect(summaryOf(result)).toMatchObject({ stopped: 'budget' });
  });

  it('stops at once when the server ignores offset, naming what it does', async () => {
    h.sandbox.addFault({ kind: 'ignore-offset', match: { path: '/visitors' }, times: Infinity });
    const result = await h.run(WEEK);
    expect(result.code).toBe(75);
    expect(h.requests('/visitors')).toBe(2); // the first page, and the same page again
    expect(String(summaryOf(result).stopMessage)).toBe(
      'the API ignores offset: the page at offset 250 of visitors 2026-03-07..2026-03-08 repeats an earlier page row for row and still claims hasMore; stopped to keep the request budget',
    );
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 0, stopped: 'failing' });
    // The next run spends one request (the spooled first page is kept) and stops again.
    const again = await h.run(WEEK);
    expect(again.code).toBe(75);
    expect(h.requests('/visitors')).toBe(3);
  });

  it('stops when the server ignores offset and serves its listing in a new order each time', async () => {
    // No page repeats an earlier one row for row, and every page past the first repeats
    // paths: after its re-walks the walk would take page after page of nothing new until the
    // budget (every hour's) was spent. Three such pages in a row stop the run.
    h.sandbox.addFault({ kind: 'shuffle', match: { path: '/visitors' }, times: Infinity });
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-07', '--to', '2026-03-08']);
    expect(result.code).toBe(75);
    expect(h.requests('/visitors')).toBeLessThanOrEqual(40);
    expect(String(summaryOf(result).stopMessage)).toMatch(
      /^the API ignores offset: 3 pages in a row of visitors 2026-03-07\.\.2026-03-08 \(the last at offset \d+\) held mostly rows already seen and still claimed hasMore; stopped to keep the request budget$/,
    );
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 0, stopped: 'failing' });
  });

  it('stops as soon on a large site, where a random page repeats few rows at first (8,000 paths)', async () => {
    const big = await startHarness(NOW, { site: { paths: 8000 } });
    try {
      big.sandbox.addFault({ kind: 'shuffle', match: { path: '/visitors' }, times: Infinity });
      const result = await big.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-07', '--to', '2026-03-08']);
      expect(result.code).toBe(75);
      expect(String(summaryOf(result).stopMessage)).toMatch(/^the API ignores offset: 3 pages in a row/);
      expect(big.requests('/visitors')).toBeLessThanOrEqual(40);
    } finally {
      await big.close();
    }
  });

  it('tells drift (a few rows moved) from a repeated page: drift still re-walks and loads', async () => {
    h.sandbox.addFault({ kind: 'drift', match: { path: '/visitors' }, times: 1 });
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    expect(result.code).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 1 });
  });
});

describe('--wait: one process for a backfill that takes hours', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 400 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('sleeps through three budget hours instead of stopping, never over the hourly budget', async () => {
    // 7 windows x 2 pages = 14 requests at 5 an hour: three budget hours.
    const result = await h.run([...WEEK, '--requests-per-hour', '5', '--wait']);
    expect(result.code).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 7, requests: 14 });
    const times = h.sandbox.requests.filter((r) => r.path.endsWith('/visitors')).map((r) => r.at);
    expect(times).toHaveLength(14);
    for (const t of times) expect(times.filter((u) => u > t - HOUR && u <= t).length).toBeLessThanOrEqual(5);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(2 * HOUR);
    const waits = logLines(result).filter((l) => l.event === 'waiting for the hourly budget');
    expect(waits).toHaveLength(2);
    expect(waits[0]).toMatchObject({ level: 'info', used_last_hour: 5, per_hour: 5, wait_ms: HOUR + SLOT_MARGIN_MS });
  });

  it('--max-wait bounds a wait: longer stops with exit 75 and the next run carries on', async () => {
    const result = await h.run([...WEEK, '--requests-per-hour', '5', '--wait', '--max-wait', '30m']);
    expect(result.code).toBe(75);
    expect(h.requests('/visitors')).toBe(5);
    expect(String(summaryOf(result).stopMessage)).toMatch(/next slot in 3602 s.*raise --max-wait to sleep until it/);
    const bad = await h.run([...WEEK, '--wait', '--max-wait', 'soon']);
    expect(bad.code).toBe(2);
    expect(asText(bad.stderr).trim()).toBe("docpipe: invalid --max-wait 'soon': expected a duration such as 90s, 45m, 6h or 2d");
    const alone = await h.run([...WEEK, '--max-wait', '1h']);
    expect(alone.code).toBe(2);
    expect(asText(alone.stderr)).toMatch(/--max-wait needs --wait/);
    // Every run waits up to a minute: a --max-wait no longer would quietly be no --wait at all.
    const short = await h.run([...WEEK, '--wait', '--max-wait', '30s']);
    expect(short.code).toBe(2);
    expect(asText(short.stderr).trim()).toBe("docpipe: invalid --max-wait '30s': expected more than 1m (a run waits up to 1m for the budget without --wait)");
    expect(h.requests('/visitors')).toBe(5);
  });

  it('--wait sleeps for a server 429 whose Retry-After is past a minute (another client spent the hour), within --max-wait', async () => {
    h.sandbox.addFault({ kind: 'rate-limit', match: { path: '/visitors' }, retryAfter: '3000', skip: 3, times: 1 });
    const result = await h.run([...WEEK, '--wait']);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 7 });
    expect(h.clock.sleeps).toContain(3_000_000);
    // Without --wait, the same answer stops the run (exit 75), as before.
    h.sandbox.addFault({ kind: 'rate-limit', match: { path: '/visitors' }, retryAfter: '3000', times: 1 });
    const stopped = await h.run([...WEEK, '--refresh']);
    expect(stopped.code).toBe(75);
  });

  it('--wait sleeps through 429s that say not how long (no Retry-After: another client spent the hour), 10 minutes each; without --wait they stop the run', async () => {
    h.sandbox.addFault({ kind: 'rate-limit', match: { path: '/visitors' }, skip: 3, times: 3 });
    const result = await h.run([...WEEK, '--wait']);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 7 });
    expect(h.clock.sleeps.filter((ms) => ms === 600_000)).toHaveLength(3);
    h.sandbox.addFault({ kind: 'rate-limit', match: { path: '/visitors' }, times: Infinity });
    const stopped = await h.run([...WEEK, '--refresh']);
    expect(stopped.code).toBe(75);
    expect(h.clock.sleeps.filter((ms) => ms === 600_000)).toHaveLength(3);
  });

  it('sync --wait is one backfill: the pipeline file\'s per-run cap (for cron runs) does not stop it before its first wait', async () => {
    const file = join(h.dir, 'capped.json');
    writeFileSync(file, JSON.stringify({ projects: ['docs'], metrics: ['visitors'], start: '2026-03-01', requestsPerHour: 5, maxRequestsPerRun: 4 }));
    const cron = await h.run(['sync', file]);
    expect(cron.code).toBe(75);
    expect(String(summaryOf(cron).stopMessage)).toMatch(/request cap for this run reached \(4 requests\)/);
    const backfill = await h.run(['sync', file, '--wait']);
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(logLines(backfill).filter((l) => l.event === 'waiting for the hourly budget').length).toBeGreaterThan(0);
    // An explicit --max-requests still caps it.
    const capped = await h.run(['sync', file, '--wait', '--max-requests', '1']);
    expect(capped.code === 0 || capped.code === 75).toBe(true);
    expect(Number(summaryOf(capped).requests)).toBeLessThanOrEqual(1);
  });

  it('Ctrl-C during a wait saves what loaded and exits 130', async () => {
    const controller = new AbortController();
    const result = await h.run([...WEEK, '--requests-per-hour', '5', '--wait'], {
      signal: controller.signal,
      onStderr: (text) => {
        if (text.includes('waiting for the hourly budget')) controller.abort(new Error('interrupted'));
      },
    });
    expect(result.code).toBe(130);
    expect(summaryOf(result)).toMatchObject({ stopped: 'interrupted', windowsLoaded: 2 });
    expect(h.requests('/visitors')).toBe(5);
  });
});

describe('sync', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 120 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('takes several grains coarse first: the newest month and week come before most days', async () => {
    const file = join(h.dir, 'grains.json');
    writeFileSync(file, JSON.stringify({ projects: ['docs'], metrics: ['visitors'], start: '2026-02-01', windows: ['day', 'week', 'month'] }));
    const result = await h.run(['sync', file, '--max-requests', '6']);
    expect(result.code).toBe(75);
    const asked = h.sandbox.requests.map((r) => `${r.query.dateFrom}..${r.query.dateTo}`);
    expect(asked).toEqual([
      '2026-02-01..2026-03-01', // the only closed month
      '2026-03-02..2026-03-09', // the newest closed week
      '2026-03-09..2026-03-10', // the newest closed day
      '2026-02-23..2026-03-02',
      '2026-03-08..2026-03-09',
      '2026-02-16..2026-02-23',
    ]);
    // Weeks start at the first Monday on or after `start`.
    const rest = await h.run(['sync', file]);
    expect(rest.code).toBe(0);
    expect(summaryOf(rest)).toMatchObject({ windowsPlanned: 1 + 5 + 37, windowsFailed: 0 });
  });

  it('says in its log, night after night, that a start after today syncs nothing until then', async () => {
    const file = join(h.dir, 'nightly.json');
    writeFileSync(file, JSON.stringify({ projects: ['docs'], metrics: ['visitors'], start: '2026-04-01' }));
    const early = await h.run(['sync', file]);
    expect(early.code).toBe(0);
    expect(h.sandbox.requests).toHaveLength(0);
    expect(logLines(early).find((l) => l.event === 'pipeline')).toMatchObject({
      level: 'warn',
      warning: 'start 2026-04-01 is after today (2026-03-10, UTC): nothing to sync until then',
    });
    // From its start on, the warning goes.
    writeFileSync(file, JSON.stringify({ projects: ['docs'], metrics: ['visitors'], start: '2026-03-08' }));
    expect(logLines(await h.run(['sync', file])).some((l) => l.event === 'pipeline')).toBe(false);
  });

  it('warns of a cap above the hourly budget with the values the run uses, the command line\'s over the file\'s', async () => {
    const file = join(h.dir, 'capped.json');
    writeFileSync(file, JSON.stringify({ projects: ['docs'], metrics: ['visitors'], start: '2026-03-08', requestsPerHour: 5, maxRequestsPerRun: 10 }));
    const warnings = async (...args: string[]) =>
      logLines(await h.run(['sync', file, ...args])).filter((l) => l.event === 'pipeline').map((l) => l.warning);
    expect(await warnings()).toEqual(['maxRequestsPerRun 10 exceeds requestsPerHour 5: the hourly budget will stop the run first']);
    // The budget the run uses is the command line's: the file's cap is within it.
    expect(await warnings('--requests-per-hour', '100')).toEqual([]);
    expect(await warnings('--max-requests', '50', '--requests-per-hour', '20')).toEqual([
      "the run's request cap 50 exceeds the hourly budget 20: the hourly budget will stop the run first",
    ]);
    // A run that waits for the budget has no cap from the file, and is not stopped by the
    // budget: it waits, and a cap of its own ends it.
    expect(await warnings('--wait', '--requests-per-hour', '1000')).toEqual([]);
    expect(await warnings('--wait', '--max-requests', '50')).toEqual([]);
    // status plans with the same values, and says the same.
    const statusWarnings = async (...args: string[]) =>
      logLines(await h.run(['status', file, ...args])).filter((l) => l.event === 'pipeline').map((l) => l.warning);
    expect(await statusWarnings()).toEqual(['maxRequestsPerRun 10 exceeds requestsPerHour 5: the hourly budget will stop the run first']);
    expect(await statusWarnings('--requests-per-hour', '100')).toEqual([]);
    // And a library caller reading the file alone hears of the file's own values.
    const heard: string[] = [];
    readPipeline(file, (w) => heard.push(w));
    expect(heard).toEqual(['maxRequestsPerRun 10 exceeds requestsPerHour 5: the hourly budget will stop the run first']);
  });

  it('takes its projects from --project or DOCPIPE_PROJECT, and refuses the shipped placeholder', async () => {
    const file = join(h.dir, 'nightly.json');
    writeFileSync(file, JSON.stringify({ projects: ['your-project-id'], metrics: ['visitors'], start: '2026-03-08' }));
    const placeholder = await h.run(['sync', file]);
    expect(placeholder.code).toBe(2);
    expect(asText(placeholder.stderr).trim()).toBe(
      `docpipe: pipeline file '${file}' still has the placeholder project id 'your-project-id': put your project id in its "projects" list, or pass --project`,
    );
    expect(h.sandbox.requests).toHaveLength(0);
    const override = await h.run(['sync', file, '--project', 'docs']);
    expect(override.code).toBe(0);
    expect(new Set(h.sandbox.requests.map((r) => r.path))).toEqual(new Set(['/v1/analytics/docs/visitors']));
  });
});
