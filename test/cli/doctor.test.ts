/**
 * `docpipe doctor [--fix]`: real exports against the sandbox over HTTP into real DuckDB
 * files, then damage made by hand (a doubled row, a crashed run, a walk left in the spool),
 * then the doctor. The pure findings functions are tested on plain objects at the end.
 */
import { thisProcess, type ProcessRef } from '../../src/core/process-identity.js';
import { appendFileSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { grainOf, type Window } from '../../src/core/domain.js';
import { Database } from '../../src/load/database.js';
import { applyRepairs, readDoctorFacts, walkFacts } from '../../src/load/doctor-io.js';
import { Store } from '../../src/load/store.js';
import {
  STALE_WALK_MS,
  countByStatus,
  diagnose,
  hasFindings,
  planRepairs,
  runFindings,
  runIsAlive,
  shellWord,
  spoolFindings,
  windowFindings,
  type DoctorFacts,
  type RunFacts,
  type WalkFacts,
  type WindowFacts,
} from '../../src/load/doctor.js';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { RequestJournal } from '../../src/spool/request-journal.js';
import { Spool, spoolDirFor } from '../../src/spool/spool.js';
import { keepRunEnd, readRunEnds } from '../../src/spool/run-ends.js';
import { logLines, startHarness, summaryOf, type CliResult, type Harness, queryDb, asText } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const DAY = 86_400_000;
const EXPORT = ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-04'];

async function exec(h: Harness, sql: string): Promise<void> {
  const db = await Database.open(h.db);
  try {
    await db.run(sql);
  } finally {
    db.close();
  }
}

interface Row {
  check: string;
  status: string;
  detail: string;
}

/** The findings of a `--format json` run (every line but the summary). */
function rowsOf(result: CliResult): Row[] {
  return result.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row & { event?: string })
    .filter((r) => r.event === undefined);
}

const doctor = (h: Harness, ...args: string[]): Promise<CliResult> => h.run(['doctor', '--format', 'json', ...args]);

/**
 * Spools a completed walk of the visitors of `window` the way an export that died before its
 * load would leave it: the pages as the sandbox serves them (fetched here with plain fetch),
 * the done line, and the owner line of a process that is gone.
 */
async function spoolCompletedWalk(h: Harness, window: Window, fetchedAt: number, owner: ProcessRef = { pid: 999_999, host: hostname() }): Promise<{ rows: number }> {
  const walk = new Spool(spoolDirFor(h.db)).walk({ metric: 'visitors', projectId: 'docs' }, window);
  walk.begin({ walk: 1, startedAt: fetchedAt, pagesBefore: 0, requestsBefore: 0 });
  const paths = new Set<string>();
  let totals = { human: 0, ai: 0, total: 0 };
  let pages = 0;
  for (let offset = 0; ; pages++) {
    const res = await fetch(
      `${h.sandbox.url}/v1/analytics/docs/visitors?dateFrom=${window.start}&dateTo=${window.end}&limit=250&offset=${offset}`,
      { headers: { authorization: `Bearer ${SANDBOX_API_KEY}` } },
    );
    const body = await res.text();
    const page = JSON.parse(body) as { totals: typeof totals; visitors: { path: string }[]; hasMore: boolean };
    walk.writePage(pages, body);
    totals = page.totals;
    for (const r of page.visitors) paths.add(r.path);
    offset += page.visitors.length;
    if (!page.hasMore) break;
  }
  pages++;
  walk.complete({
    metric: 'visitors',
    projectId: 'docs',
    window,
    fetchedAt,
    runId: 'crashed-run',
    totals,
    rows: paths.size,
    pages,
    requests: pages,
    walks: 1,
    warnings: [],
    repeatedPaths: false,
  });
  appendFileSync(walk.pagesFile, `${JSON.stringify({ owner })}\n`);
  return { rows: paths.size };
}

describe('docpipe doctor', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 400 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('finds nothing wrong after an export (exit 0), in a table or as JSON lines', async () => {
    expect((await h.run(EXPORT)).code).toBe(0);
    const table = await h.run(['doctor']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^check\s+status\s+detail$/);
    expect(lines.at(-1)).toBe('doctor: 0 findings, 0 fixed, 0 info: the database is sound');
    expect(table.stdout).toMatch(/windows\s+ok\s+3 loaded windows/);

    const json = await doctor(h);
    expect(json.code).toBe(0);
    const rows = rowsOf(json);
    expect(rows.map((r) => r.check)).toEqual(['grain', 'windows', 'orphans', 'views', 'spool', 'journal', 'runs']);
    expect(rows.every((r) => r.status === 'ok')).toBe(true);
    expect(summaryOf(json)).toMatchObject({ event: 'summary', finding: 0, fixed: 0, exitCode: 0 });
  });

  it('finds a doubled page row, naming its window; --fix keeps one copy', async () => {
    await h.run(EXPORT);
    await exec(
      h,
      `INSERT INTO page_visitors SELECT * FROM page_visitors
        WHERE window_start = '2026-03-02' AND path = (SELECT min(path) FROM page_visitors WHERE window_start = '2026-03-02')`,
    );
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    const grain = rowsOf(checked).filter((r) => r.check === 'grain');
    expect(grain).toHaveLength(1);
    expect(grain[0]).toMatchObject({ status: 'finding' });
    expect(grain[0]!.detail).toContain('visitors docs [2026-03-02, 2026-03-03)');
    expect(grain[0]!.detail).toMatch(/1 extra row for 1 path/);
    // A doubled row is the grain's finding, not also a miscounted window.
    expect(rowsOf(checked).find((r) => r.check === 'windows')).toMatchObject({ status: 'ok' });

    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(rowsOf(fixed).find((r) => r.status === 'fixed')).toMatchObject({ check: 'grain' });
    expect(rowsOf(fixed).find((r) => r.status === 'fixed')?.detail).toMatch(/deleted 1 extra copy, kept one row per path \(safe/);
    const [counts] = await queryDb<{ rows: bigint; paths: bigint }>(
      h,
      `SELECT count(*) AS rows, count(DISTINCT path) AS paths FROM page_visitors WHERE window_start = '2026-03-02'`,
    );
    expect(counts!.rows).toBe(counts!.paths);
    const [lw] = await queryDb<{ row_count: bigint }>(h, `SELECT row_count FROM loaded_windows WHERE window_start = '2026-03-02'`);
    expect(lw!.row_count).toBe(counts!.rows);
    expect((await doctor(h)).code).toBe(0);
  });

  it('copies of a row that differ (not only in the run that loaded them) are found but not deleted: --fix would guess which is right; the refresh it names mends them', async () => {
    await h.run(EXPORT);
    const first = "(SELECT min(path) FROM page_visitors WHERE window_start = '2026-03-02')";
    const last = "(SELECT max(path) FROM page_visitors WHERE window_start = '2026-03-02')";
    // A copy loaded by another run is the same data; a copy with another count is not.
    await exec(h, `INSERT INTO page_visitors SELECT * REPLACE ('another-run' AS run_id) FROM page_visitors WHERE window_start = '2026-03-02' AND path = ${first}`);
    await exec(h, `INSERT INTO page_visitors SELECT * REPLACE (human + 7 AS human, total + 7 AS total) FROM page_visitors WHERE window_start = '2026-03-02' AND path = ${last}`);
    const [{ path: differing } = { path: '' }] = await queryDb<{ path: string }>(h, `SELECT ${last} AS path`);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    const grain = rowsOf(checked).filter((r) => r.check === 'grain');
    expect(grain).toHaveLength(1);
    expect(grain[0]!.detail).toBe(
      `visitors docs [2026-03-02, 2026-03-03): 2 extra rows for 2 paths held more than once (e.g. ${(await queryDb<{ p: string }>(h, `SELECT ${first} AS p`))[0]!.p}); ` +
        `the copies of 1 path differ (e.g. ${differing}), so --fix keeps them all; ` +
        'to fetch it again: docpipe export visitors --project docs --from 2026-03-02 --to 2026-03-03 --window day --refresh',
    );
    const before = await queryDb(h, `SELECT path, human, run_id FROM page_visitors WHERE window_start = '2026-03-02' ORDER BY ALL`);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(1);
    expect(summaryOf(fixed)).toMatchObject({ fixed: 0 });
    expect(await queryDb(h, `SELECT path, human, run_id FROM page_visitors WHERE window_start = '2026-03-02' ORDER BY ALL`)).toEqual(before);
    // Fetched again, the window is whole: one row a path, as the API counts it.
    expect((await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-03', '--window', 'day', '--refresh'])).code).toBe(0);
    expect((await doctor(h)).code).toBe(0);
  });

  it('a path with both an exact copy and one that differs: --fix deletes neither', async () => {
    await h.run(EXPORT);
    const path = "(SELECT min(path) FROM page_visitors WHERE window_start = '2026-03-02')";
    await exec(h, `INSERT INTO page_visitors SELECT * FROM page_visitors WHERE window_start = '2026-03-02' AND path = ${path}`);
    await exec(h, `INSERT INTO page_visitors SELECT * REPLACE (ai + 1 AS ai, total + 1 AS total) FROM page_visitors WHERE window_start = '2026-03-02' AND path = ${path} LIMIT 1`);
    // Both kinds of copy of one path: the finding names the difference and plans no deletion.
    const checked = await doctor(h);
    expect(rowsOf(checked).find((r) => r.check === 'grain')?.detail).toMatch(/2 extra rows for 1 path held more than once .*the copies of 1 path differ/);
    expect(summaryOf(await doctor(h, '--fix'))).toMatchObject({ fixed: 0 });
    expect(await queryDb(h, `SELECT count(*) AS n FROM page_visitors WHERE window_start = '2026-03-02' AND path = ${path}`)).toEqual([{ n: 3n }]);
  });

  it('checks windows a quarter at a time, and finds what is wrong in any quarter of years of windows', async () => {
    await h.run(EXPORT);
    // The same windows again 100, 200 and 400 days earlier: four quarters apart.
    for (const days of [100, 200, 400]) {
      const shift = (table: string, where = ''): string =>
        `INSERT INTO ${table} SELECT * REPLACE (window_start - ${days} AS window_start, window_end - ${days} AS window_end) FROM ${table}
          WHERE window_start >= DATE '2026-03-01' ${where}`;
      await exec(h, shift('page_visitors'));
      await exec(h, shift('visitor_totals'));
      await exec(h, shift('loaded_windows', "AND metric = 'visitors'"));
    }
    expect((await doctor(h)).code).toBe(0);
    // A doubled row 200 days back and a window without its totals 400 days back.
    await exec(h, `INSERT INTO page_visitors SELECT * FROM page_visitors WHERE window_start = DATE '2026-03-02' - 200 AND path = (SELECT min(path) FROM page_visitors)`);
    await exec(h, `DELETE FROM visitor_totals WHERE window_start = DATE '2026-03-02' - 400`);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    const findings = rowsOf(checked).filter((r) => r.status === 'finding').map((r) => [r.check, r.detail]);
    expect(findings).toEqual([
      ['grain', expect.stringMatching(/^visitors docs \[2025-08-14, 2025-08-15\): .*1 extra row for 1 path/)],
      ['windows', expect.stringMatching(/^visitors docs \[2025-01-26, 2025-01-27\): loaded, but has no totals row/)],
    ]);
    // A second project's windows, all orphans: listed by project, then window, across quarters.
    await exec(h, `INSERT INTO page_visitors SELECT * REPLACE ('guides' AS project_id) FROM page_visitors WHERE project_id = 'docs'`);
    const orphans = rowsOf(await doctor(h)).filter((r) => r.check === 'orphans' && r.status === 'finding').map((r) => r.detail.slice(0, 40));
    expect(orphans).toHaveLength(12);
    expect(orphans).toEqual([...orphans].sort());
    expect(orphans[0]).toBe('visitors guides [2025-01-25, 2025-01-26)');
  });

  it('checks the grain of searches and feedback by page too (keyless like the page tables); --fix keeps one copy', async () => {
    for (const metric of ['searches', 'feedback-by-page']) {
      const run = await h.run(['export', metric, '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
      expect(run.code, run.stderr).toBe(0);
    }
    const clean = await doctor(h);
    expect(clean.code).toBe(0);
    expect(rowsOf(clean).find((r) => r.check === 'windows')?.detail).toMatch(/^4 loaded windows/);
    await exec(
      h,
      `INSERT INTO searches SELECT * FROM searches
        WHERE window_start = '2026-03-02' AND search_query = (SELECT min(search_query) FROM searches WHERE window_start = '2026-03-02')`,
    );
    await exec(
      h,
      `INSERT INTO feedback_by_page SELECT * FROM feedback_by_page
        WHERE window_start = '2026-03-01' AND path = (SELECT min(path) FROM feedback_by_page WHERE window_start = '2026-03-01')`,
    );
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    const grain = rowsOf(checked).filter((r) => r.check === 'grain').map((r) => r.detail);
    expect(grain).toEqual([
      expect.stringMatching(/^searches docs \[2026-03-02, 2026-03-03\): 1 extra row for 1 search query held more than once/),
      expect.stringMatching(/^feedback-by-page docs \[2026-03-01, 2026-03-02\): 1 extra row for 1 path held more than once/),
    ]);
    // A window of feedback by page has no totals row to miss: nothing else is wrong.
    expect(rowsOf(checked).find((r) => r.check === 'windows')).toMatchObject({ status: 'ok' });

    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(rowsOf(fixed).filter((r) => r.status === 'fixed').map((r) => r.detail)).toEqual([
      expect.stringMatching(/kept one row per search query/),
      expect.stringMatching(/kept one row per path/),
    ]);
    expect((await doctor(h)).code).toBe(0);
  });

  it('checks the windows of feedback, assistant conversations and caller stats too: their row counts (an event may move out, never in) and orphans', async () => {
    for (const metric of ['feedback', 'assistant', 'caller-stats']) {
      const run = await h.run(['export', metric, '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
      expect(run.code, run.stderr).toBe(0);
    }
    const clean = await doctor(h);
    expect(clean.code, clean.stdout).toBe(0);
    expect(rowsOf(clean).find((r) => r.check === 'windows')?.detail).toMatch(/^6 loaded windows of every endpoint/);
    const counts = await queryDb<{ metric: string; s: string; row_count: bigint; held: bigint }>(
      h,
      `SELECT metric, strftime(window_start, '%Y-%m-%d') AS s, row_count,
              CASE metric WHEN 'feedback' THEN (SELECT count(*) FROM feedback f WHERE f.window_start = l.window_start)
                          WHEN 'assistant' THEN (SELECT count(*) FROM assistant_conversations a WHERE a.window_start = l.window_start)
                          ELSE (SELECT count(*) FROM assistant_caller_stats c WHERE c.window_start = l.window_start) END AS held
         FROM loaded_windows l ORDER BY metric, s`,
    );
    // The sandbox has events on both days, so that the damage below is to real rows.
    expect(counts.every((c) => c.held === c.row_count && c.held > 0n), JSON.stringify(counts, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))).toBe(true);

    // A conversation fewer than its walk saw is what a later window's load leaves when it takes
    // an event over: not a finding.
    await exec(h, `DELETE FROM assistant_conversations WHERE window_start = '2026-03-02' AND id = (SELECT min(id) FROM assistant_conversations WHERE window_start = '2026-03-02')`);
    expect((await doctor(h)).code).toBe(0);
    // One more feedback event than the walk saw, a caller-stats window without its row, and
    // feedback rows of a window that is not loaded are.
    await exec(h, `INSERT INTO feedback (project_id, id, window_start, window_end) VALUES ('docs', 'not-from-the-api', DATE '2026-03-01', DATE '2026-03-02')`);
    await exec(h, `DELETE FROM assistant_caller_stats WHERE window_start = '2026-03-02'`);
    await exec(h, `DELETE FROM loaded_windows WHERE metric = 'feedback' AND window_start = '2026-03-02'`);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    const found = rowsOf(checked).filter((r) => r.status === 'finding').map((r) => `${r.check}: ${r.detail}`);
    expect(found).toEqual([
      expect.stringMatching(/^windows: feedback docs \[2026-03-01, 2026-03-02\): loaded_windows\.row_count is \d+, feedback holds \d+ feedback ids \(more than its walk saw\); to fetch it again: docpipe export feedback --project docs --from 2026-03-01 --to 2026-03-02 --window day --refresh$/),
      expect.stringMatching(/^windows: caller-stats docs \[2026-03-02, 2026-03-03\): loaded_windows\.row_count is 1, assistant_caller_stats holds 0 rows; to fetch it again: docpipe export caller-stats /),
      expect.stringMatching(/^orphans: feedback docs \[2026-03-02, 2026-03-03\): \d+ rows? in feedback but no loaded_windows row$/),
    ]);
    const fixed = await doctor(h, '--fix');
    expect(rowsOf(fixed).filter((r) => r.status === 'fixed').map((r) => r.detail)).toEqual([
      expect.stringMatching(/^feedback docs \[2026-03-02, 2026-03-03\): deleted \d+ rows? and 0 totals rows that no loaded window owned/),
    ]);
    expect(await queryDb(h, `SELECT count(*) AS n FROM feedback WHERE window_start = '2026-03-02'`)).toEqual([{ n: 0n }]);
    // The miscounted windows are left to the command each names; run, they mend them.
    for (const f of rowsOf(fixed).filter((r) => r.check === 'windows' && r.status === 'finding')) {
      const run = await h.run(/to fetch it again: docpipe (.*)$/.exec(f.detail)![1]!.split(' '));
      expect(run.code, run.stderr).toBe(0);
    }
    // And the orphaned window, fetched again, is whole.
    expect((await h.run(['export', 'feedback', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-03'])).code).toBe(0);
    const after = await doctor(h);
    expect(after.code, after.stdout).toBe(0);
  });

  it('finds a view or macro of sql/views.sql dropped by hand (the open that writes makes views again, not macros); --fix makes them again', async () => {
    await h.run(EXPORT);
    expect(rowsOf(await doctor(h)).find((r) => r.check === 'views')).toMatchObject({ status: 'ok' });
    await exec(h, 'DROP MACRO window_complete');
    // The views that use it fail, and so does the report.
    const broken = await h.run(['query', 'SELECT count(*) FROM window_status']);
    expect(broken.code).not.toBe(0);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).filter((r) => r.status === 'finding')).toEqual([
      {
        check: 'views',
        status: 'finding',
        detail: 'macro window_complete missing (dropped by hand?): the views that use it and docpipe report fail; --fix makes the views and macros of sql/views.sql again',
      },
    ]);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(rowsOf(fixed).filter((r) => r.status === 'fixed').map((r) => r.detail)).toEqual(['made the views and macros of sql/views.sql again']);
    const works = await h.run(['query', 'SELECT count(*) AS n FROM window_status']);
    expect(works.code, asText(works.stderr)).toBe(0);
    expect((await h.run(['report', '--out', join(h.dir, 'report.html'), '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-04'])).code).toBe(0);
  });

  it('finds runs a crash left running; --fix marks them crashed and leaves a live one alone', async () => {
    await h.run(EXPORT);
    await exec(
      h,
      `INSERT INTO runs (run_id, command, started_at, status, pid, host, process_start) VALUES
         ('dead-run', 'export visitors', TIMESTAMPTZ '2026-03-09 02:00:00+00', 'running', 999999, '${hostname()}', NULL),
         ('old-run', 'sync', TIMESTAMPTZ '2026-03-08 02:00:00+00', 'running', NULL, NULL, NULL),
         ('reused-run', 'sync', TIMESTAMPTZ '2026-03-09 03:00:00+00', 'running', ${process.pid}, '${hostname()}', '1.${thisProcess().start?.split('.').slice(1).join('.')}'),
         ('live-run', 'sync', TIMESTAMPTZ '2026-03-10 05:00:00+00', 'running', ${process.pid}, '${hostname()}', ${thisProcess().start ? `'${thisProcess().start}'` : 'NULL'})`,
    );
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    const runs = rowsOf(checked).filter((r) => r.check === 'runs');
    // The start tells that this process is not the one that ran reused-run (Linux; elsewhere the pid decides).
    const reusedTold = thisProcess().start !== undefined;
    expect(runs.map((r) => [r.status, r.detail.split(' ')[1]])).toEqual([
      ['finding', 'old-run'],
      ['finding', 'dead-run'],
      [reusedTold ? 'finding' : 'info', 'reused-run'],
      ['info', 'live-run'],
    ]);
    expect(runs[1]!.detail).toMatch(/pid 999999 is gone/);
    expect(runs[0]!.detail).toMatch(/no pid was recorded/);
    if (reusedTold) expect(runs[2]!.detail).toMatch(new RegExp(`pid ${process.pid} is another process now: it crashed`));

    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(summaryOf(fixed)).toMatchObject(reusedTold ? { fixed: 3, finding: 0, info: 1 } : { fixed: 2, finding: 0, info: 2 });
    const after = await queryDb<{ run_id: string; status: string; finished: string | null }>(
      h,
      `SELECT run_id, status, strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished FROM runs
        WHERE run_id IN ('dead-run', 'old-run', 'live-run') ORDER BY run_id`,
    );
    expect(after).toEqual([
      { run_id: 'dead-run', status: 'crashed', finished: '2026-03-10T06:00:00Z' },
      { run_id: 'live-run', status: 'running', finished: null },
      { run_id: 'old-run', status: 'crashed', finished: '2026-03-10T06:00:00Z' },
    ]);
  });

  it.runIf(process.platform === 'linux')('a 0.2.0 run (no process start recorded) whose pid a process started after it has now is crashed, not alive', async () => {
    await h.run(EXPORT);
    // Two processes alive now: one the 0.2.0 run could be (started before its record), one it cannot (started an hour after it).
    const spawnIdle = (): ChildProcess => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const [before, after] = [spawnIdle(), spawnIdle()];
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await exec(
        h,
        `INSERT INTO runs (run_id, command, started_at, status, pid, host, process_start) VALUES
           ('its-own-pid', 'sync', now(), 'running', ${before.pid}, '${hostname()}', NULL),
           ('reused-pid', 'sync', now() - INTERVAL 1 HOUR, 'running', ${after.pid}, '${hostname()}', NULL),
           ('clock-stepped', 'sync', now() - INTERVAL 3 MINUTE, 'running', ${before.pid}, '${hostname()}', NULL)`,
      );
      // clock-stepped: its process looks 3 minutes younger than its record, as after NTP set
      // the clock forward while it ran: still alive.
      const checked = await doctor(h);
      expect(checked.code).toBe(1);
      const runs = rowsOf(checked).filter((r) => r.check === 'runs');
      expect(runs.map((r) => [r.status, r.detail.split(' ')[1]])).toEqual([
        ['finding', 'reused-pid'],
        ['info', 'clock-stepped'],
        ['info', 'its-own-pid'],
      ]);
      expect(runs[0]!.detail).toMatch(new RegExp(`pid ${after.pid} is another process now: it crashed`));
      expect((await doctor(h, '--fix')).code).toBe(0);
      expect(await queryDb(h, `SELECT run_id, status FROM runs WHERE run_id IN ('its-own-pid', 'reused-pid', 'clock-stepped') ORDER BY run_id`)).toEqual([
        { run_id: 'clock-stepped', status: 'running' },
        { run_id: 'its-own-pid', status: 'running' },
        { run_id: 'reused-pid', status: 'crashed' },
      ]);
    } finally {
      before.kill('SIGKILL');
      after.kill('SIGKILL');
    }
  });

  it('a run whose end the spool kept (the database was held when it ended) is a finding; --fix records that end, not a crash', async () => {
    await h.run(EXPORT);
    await exec(
      h,
      `INSERT INTO runs (run_id, command, started_at, status, pid, host, process_start) VALUES
         ('held-run', 'export visitors', TIMESTAMPTZ '2026-03-09 02:00:00+00', 'running', 999999, '${hostname()}', NULL)`,
    );
    const finishedAt = Date.parse('2026-03-09T02:10:00Z');
    keepRunEnd(spoolDirFor(h.db), 'held-run', { status: 'locked', exitCode: 75, summary: { stopped: 'locked', windowsLeft: 3 }, finishedAt });
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).find((r) => r.check === 'runs')?.detail).toMatch(/held-run .*: status running, but it ended \(locked, exit 75\) while the database was held/);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(rowsOf(fixed).filter((r) => r.status === 'fixed').map((r) => r.detail)).toEqual(['run held-run: recorded the end it kept in the spool (locked)']);
    expect(
      await queryDb(h, `SELECT status, exit_code::INTEGER AS code, summary->>'windowsLeft' AS left, strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished FROM runs WHERE run_id = 'held-run'`),
    ).toEqual([{ status: 'locked', code: 75, left: '3', finished: '2026-03-09T02:10:00Z' }]);
    expect(readRunEnds(spoolDirFor(h.db)).size).toBe(0);
    expect((await doctor(h)).code).toBe(0);
  });

  it('finds assistant thread bodies fetched and not loaded (a run killed before its load); --fix loads them, and status does not count them as requests left', async () => {
    expect((await h.run(['export', 'assistant', '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-03'])).code).toBe(0);
    const [conversation] = await queryDb<{ id: string }>(h, `SELECT id FROM assistant_conversations ORDER BY id LIMIT 1`);
    const id = conversation!.id;
    // What a run killed after the request and before its load leaves: the body, and the claim of a process that is gone.
    const dir = join(spoolDirFor(h.db), 'threads', 'docs');
    mkdirSync(dir, { recursive: true });
    const body = { threadId: id, createdAt: '2026-03-02T10:00:00Z', messages: [{ id: 'm1', role: 'user', content: 'How?', createdAt: '2026-03-02T10:00:00Z' }] };
    writeFileSync(join(dir, `${id}.jsonl`), `${JSON.stringify({ body })}\n`);
    writeFileSync(join(dir, `${id}.claim`), `${JSON.stringify({ owner: { pid: 999_999, host: hostname() } })}\n`);
    const before = h.sandbox.requests.length;
    const status = await h.run(['status', '--format', 'json']);
    const threads = (JSON.parse(status.stdout) as { threads: { referenced: number; fetched: number; spooled: number; requestsLeft: number } }).threads;
    expect(threads).toMatchObject({ fetched: 0, spooled: 1, requestsLeft: threads.referenced - 1 });

    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).find((r) => r.check === 'spool')?.detail).toBe('assistant docs: 1 thread body fetched and not loaded: --fix loads them, no request needed');
    const fixed = await doctor(h, '--fix');
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(rowsOf(fixed).filter((r) => r.status === 'fixed').map((r) => r.detail)).toContain('loaded 1 assistant thread body from the spool, no request made');
    expect(await queryDb(h, `SELECT thread_id, message_count::INTEGER AS n FROM assistant_threads`)).toEqual([{ thread_id: id, n: 1 }]);
    expect(await queryDb(h, `SELECT content FROM assistant_messages`)).toEqual([{ content: 'How?' }]);
    expect(readdirSync(dir)).toEqual([]);
    expect(h.sandbox.requests.length).toBe(before);
  });

  it('finds a completed walk left in the spool; --fix loads it without a request', async () => {
    await h.run(EXPORT);
    const window = { start: '2026-03-05', end: '2026-03-06' };
    const { rows } = await spoolCompletedWalk(h, window, h.clock.now() - 3_600_000);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    const spool = rowsOf(checked).filter((r) => r.check === 'spool');
    expect(spool).toEqual([
      {
        check: 'spool',
        status: 'finding',
        detail: expect.stringMatching(/^visitors docs \[2026-03-05, 2026-03-06\): a completed walk of \d+ rows .* not loaded/),
      },
    ]);

    const before = h.sandbox.requests.length;
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(h.sandbox.requests.length).toBe(before);
    expect(rowsOf(fixed).filter((r) => r.status === 'fixed').map((r) => r.detail)).toEqual([
      `visitors docs [2026-03-05, 2026-03-06): loaded a completed walk of ${rows} rows from the spool (no request)`,
    ]);
    expect(
      await queryDb(h, `SELECT run_id, row_count FROM loaded_windows WHERE window_start = '2026-03-05' AND window_end = '2026-03-06'`),
    ).toEqual([{ run_id: 'crashed-run', row_count: BigInt(rows) }]);
    expect(await queryDb(h, `SELECT count(*) AS n FROM page_visitors WHERE window_start = '2026-03-05'`)).toEqual([{ n: BigInt(rows) }]);
    expect(new Spool(spoolDirFor(h.db)).walks()).toEqual([]);
    // The export agrees that the window is loaded: it asks for nothing.
    const again = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-05', '--to', '2026-03-06']);
    expect(summaryOf(again)).toMatchObject({ windowsSkipped: 1, requests: 0 });
  });

  it.runIf(process.platform === 'linux')('a walk and a run left by another container (its own host name and pids) are taken over once its heartbeat stops', async () => {
    await h.run(EXPORT);
    // As a Kubernetes CronJob's pod or a `docker run` leaves them: pid 1 of a host name never seen again.
    const pod = { pid: 1, host: `pod-${process.pid}`, start: `4242.0badc0de.4026531999` };
    const window = { start: '2026-03-05', end: '2026-03-06' };
    const { rows } = await spoolCompletedWalk(h, window, h.clock.now() - 3_600_000, pod);
    await exec(
      h,
      `INSERT INTO runs (run_id, command, started_at, status, pid, host, process_start)
       VALUES ('pod-run', 'export visitors', TIMESTAMPTZ '2026-03-10 05:00:00+00', 'running', 1, '${pod.host}', '${pod.start}')`,
    );
    const alive = join(`${h.db}.spool`, 'alive', `${pod.pid}+${pod.start}`);
    mkdirSync(dirname(alive), { recursive: true });
    // While it beats, the pod is at work: its walk and its run are left alone.
    writeFileSync(alive, '');
    const busy = await doctor(h);
    expect(rowsOf(busy).filter((r) => r.check === 'spool' || r.check === 'runs').map((r) => r.status)).toEqual(['info', 'info']);
    expect(rowsOf(busy).find((r) => r.check === 'runs')!.detail).toMatch(/running, pid 1 on host pod-\d+, whose heartbeat in the spool is fresh$/);
    const next = [...EXPORT.slice(0, -2), '--to', '2026-03-06'];
    const during = await h.run(next);
    expect(during.code).toBe(0);
    // 03-04 fetched and loaded; 03-05 left to the pod; the run it recorded is not marked crashed.
    expect(summaryOf(during)).toMatchObject({ windowsLoaded: 1, windowsSkipped: 4, windowsLeftToOthers: 1 });
    expect(logLines(during).some((l) => l.event === 'earlier runs marked crashed')).toBe(false);
    // Its heartbeat stopped 6 minutes ago (killed, out of memory): the next run takes both over.
    const stopped = new Date(Date.now() - 6 * 60_000);
    utimesSync(alive, stopped, stopped);
    expect(rowsOf(await doctor(h)).find((r) => r.check === 'runs')).toMatchObject({
      status: 'finding',
      detail: expect.stringMatching(/status running, but its process \(pid 1 on host pod-\d+\) has not beaten in the spool for 5 minutes: it crashed$/),
    });
    const requested = h.sandbox.requests.length;
    const after = await h.run(next);
    expect(after.code).toBe(0);
    // Planned = skipped + loaded: the window from the spool is loaded, not skipped too.
    expect(summaryOf(after)).toMatchObject({ windowsPlanned: 5, windowsLoaded: 1, windowsFromSpool: 1, windowsSkipped: 4, requests: 0 });
    expect(h.sandbox.requests.length).toBe(requested);
    expect(logLines(after).find((l) => l.event === 'earlier runs marked crashed')).toMatchObject({ runs: ['pod-run'] });
    expect(await queryDb(h, `SELECT count(*) AS n FROM page_visitors WHERE window_start = '2026-03-05'`)).toEqual([{ n: BigInt(rows) }]);
    expect((await doctor(h)).code).toBe(0);
  });

  it('discards a completed walk the database has overtaken, keeping the newer copy', async () => {
    await h.run(EXPORT);
    await spoolCompletedWalk(h, { start: '2026-03-02', end: '2026-03-03' }, h.clock.now() - DAY);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).find((r) => r.check === 'spool')?.detail).toMatch(/the database has overtaken: --fix discards it/);
    const before = await queryDb(h, `SELECT run_id, fetched_at FROM loaded_windows WHERE window_start = '2026-03-02'`);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(rowsOf(fixed).find((r) => r.status === 'fixed')?.detail).toMatch(/discarded a completed walk the database had overtaken/);
    expect(await queryDb(h, `SELECT run_id, fetched_at FROM loaded_windows WHERE window_start = '2026-03-02'`)).toEqual(before);
    expect(new Spool(spoolDirFor(h.db)).walks()).toEqual([]);
  });

  it('leaves a fresh incomplete walk for the next export (info), discards it once stale', async () => {
    // 2 pages a window: the 5th request is the first page of the third window, then the cap.
    const cut = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08', '--max-requests', '5']);
    expect(cut.code).toBe(75);
    const fresh = await doctor(h);
    expect(fresh.code).toBe(0);
    expect(rowsOf(fresh).filter((r) => r.check === 'spool')).toEqual([
      {
        check: 'spool',
        status: 'info',
        detail: 'visitors docs [2026-03-05, 2026-03-06): an incomplete walk started 2026-03-10T06:00:00Z: the next export of the window resumes it',
      },
    ]);
    const kept = await doctor(h, '--fix');
    expect(kept.code).toBe(0);
    expect(new Spool(spoolDirFor(h.db)).walks()).toHaveLength(1);

    h.clock.advance(8 * DAY);
    // Started 8 days ago, but its file was written since (as a run that resumed it would): kept.
    const resumed = await doctor(h);
    expect(resumed.code).toBe(0);
    expect(rowsOf(resumed).find((r) => r.check === 'spool')).toMatchObject({ status: 'info', detail: expect.stringMatching(/the next export of the window resumes it$/) });
    // Not written for 8 days either: abandoned.
    const [file] = new Spool(spoolDirFor(h.db)).walks().map((w) => w.pagesFile);
    const old = new Date(Date.now() - 8 * DAY);
    utimesSync(file!, old, old);
    const stale = await doctor(h);
    expect(stale.code).toBe(1);
    expect(rowsOf(stale).find((r) => r.check === 'spool')).toMatchObject({ status: 'finding', detail: expect.stringMatching(/and not written since, more than 7 days ago: --fix discards it/) });
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(rowsOf(fixed).find((r) => r.status === 'fixed')?.detail).toMatch(/2026-03-05.*discarded an abandoned incomplete walk/);
    expect(new Spool(spoolDirFor(h.db)).walks()).toEqual([]);
  });

  it('--fix keeps an abandoned walk that an export wrote to after doctor looked at it', async () => {
    const cut = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08', '--max-requests', '5']);
    expect(cut.code).toBe(75);
    h.clock.advance(8 * DAY);
    const spool = new Spool(spoolDirFor(h.db));
    const [left] = spool.walks();
    const old = new Date(Date.now() - 8 * DAY);
    utimesSync(left!.pagesFile, old, old);
    // doctor --fix looks, and plans the discard ...
    const repairs = planRepairs(diagnose(await Database.with(h.db, {}, (db) => readDoctorFacts(db, spool)), h.clock.now()));
    expect(repairs).toEqual([expect.objectContaining({ kind: 'discard-walk', pages: 1 })]);
    // ... then, while it waits for the database, an export resumes the walk, pays for a page and stops.
    const resumed = spool.walk(left!.series, left!.window);
    expect(resumed.claim()).toBe(true);
    resumed.writePage(1, JSON.stringify(resumed.pages()[0]!.body));
    resumed.release();
    const fixed = await applyRepairs(repairs, { store: new Store(h.db), spool, now: h.clock.now(), runId: 'doctor' });
    expect(fixed).toEqual([
      { check: 'spool', status: 'info', detail: 'visitors docs [2026-03-05, 2026-03-06): an export wrote to the incomplete walk after doctor looked: left for the next export' },
    ]);
    expect(spool.walks().map((w) => w.pages().length)).toEqual([2]);
  });

  it('moves a leftover request journal into request_log with --fix', async () => {
    await h.run(EXPORT);
    const spool = new Spool(spoolDirFor(h.db));
    // A run of this process that never got to write (this process ran it, so it is not in use).
    const journal = new RequestJournal(spool.requestsDir, 'lost-run');
    const id = journal.begin({ scope: 'analytics@http://127.0.0.1', method: 'GET', path: '/v1/analytics/docs/visitors', startedAt: h.clock.now() });
    journal.end(id, { scope: 'analytics@http://127.0.0.1', method: 'GET', path: '/v1/analytics/docs/visitors', startedAt: h.clock.now() }, 200, 12);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).find((r) => r.check === 'journal')).toMatchObject({
      status: 'finding',
      detail: expect.stringMatching(new RegExp(`^1 request-journal file of ended processes \\(pid ${process.pid}\\)`)),
    });
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(await queryDb(h, `SELECT run_id, status, duration_ms FROM request_log WHERE request_id = '${id}'`)).toEqual([
      { run_id: 'lost-run', status: 200, duration_ms: 12 },
    ]);
    expect(readdirSync(spool.requestsDir)).toEqual([]);
  });

  it('finds the copies interrupted writes left in the spool (killed between write and rename); --fix removes the stale ones of ended processes', async () => {
    expect((await h.run(EXPORT)).code).toBe(0);
    const root = spoolDirFor(h.db);
    const dir = join(root, 'walks', 'visitors', 'docs');
    mkdirSync(dir, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const aged = (path: string, hours: number): string => {
      writeFileSync(path, '{"walk":');
      const at = new Date(Date.now() - hours * 3_600_000);
      utimesSync(path, at, at);
      return path;
    };
    const stale = aged(join(dir, `2026-03-01_2026-03-02.jsonl.${dead}.tmp`), 2);
    // Its write may still be under way (a process on another host), or its process lives.
    const fresh = aged(join(dir, `2026-03-02_2026-03-03.jsonl.${dead}.tmp`), 0);
    const live = aged(join(root, `run-end.${process.pid}.tmp`), 2);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).filter((r) => r.check === 'spool')).toEqual([{
      check: 'spool',
      status: 'finding',
      detail: `1 copy of spool files left by interrupted writes of ended processes (pid ${dead}), e.g. walks/visitors/docs/2026-03-01_2026-03-02.jsonl.${dead}.tmp: --fix removes them`,
    }]);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(rowsOf(fixed).filter((r) => r.check === 'spool').map((r) => [r.status, r.detail])).toEqual([
      ['fixed', 'removed 1 copy of spool files that interrupted writes left'],
      ['ok', 'no walk or thread body left over'],
    ]);
    expect([existsSync(stale), existsSync(fresh), existsSync(live)]).toEqual([false, true, true]);
    expect((await doctor(h)).code).toBe(0);
  });

  it('finds the new database files killed processes left beside the database (before or after linking it into place); --fix removes those of ended processes, the database untouched', async () => {
    expect((await h.run(EXPORT)).code).toBe(0);
    const rows = await queryDb(h, 'SELECT count(*)::INTEGER AS n FROM page_visitors');
    const [dead, deadBefore, deadElsewhere] = [1, 2, 3].map(() => spawnSync(process.execPath, ['-e', '']).pid!) as [number, number, number];
    // Killed after linking its file into place, before removing its own name: the database under
    // a second name (as fresh as the database).
    const linked = `${h.db}.${dead}.tmp`;
    linkSync(h.db, linked);
    // Killed before the link: DuckDB's headers of a file that never became the database.
    const unlinked = `${h.db}.${deadBefore}.tmp`;
    writeFileSync(unlinked, Buffer.alloc(12_288));
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(unlinked, twoHoursAgo, twoHoursAgo);
    // Kept: a new file a process on another host may be making now, and this live process's second name.
    const fresh = `${h.db}.${deadElsewhere}.tmp`;
    writeFileSync(fresh, Buffer.alloc(4_096));
    const live = `${h.db}.${process.pid}.tmp`;
    linkSync(h.db, live);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).filter((r) => r.status === 'finding')).toEqual([{
      check: 'spool',
      status: 'finding',
      detail: `2 new database files beside the database left by ended processes that were making it (pid ${dead}, ${deadBefore}), e.g. ${basename(linked)}: --fix removes them`,
    }]);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(rowsOf(fixed).filter((r) => r.status === 'fixed').map((r) => r.detail)).toEqual([
      'removed 2 new database files that ended processes left beside the database',
    ]);
    expect([existsSync(linked), existsSync(unlinked), existsSync(fresh), existsSync(live)]).toEqual([false, false, true, true]);
    expect(await queryDb(h, 'SELECT count(*)::INTEGER AS n FROM page_visitors')).toEqual(rows);
    expect((await doctor(h)).code).toBe(0);
  });

  it('looks for such new database files beside the file a --db that is a symbolic link leads to (where they are made)', async () => {
    const target = join(dirname(h.db), 'files', 'real.duckdb');
    mkdirSync(dirname(target));
    const link = join(dirname(h.db), 'via-link.duckdb');
    symlinkSync(target, link);
    expect((await h.run([...EXPORT, '--db', link])).code).toBe(0);
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const left = `${target}.${dead}.tmp`;
    linkSync(target, left);
    const checked = await doctor(h, '--db', link);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).find((r) => r.status === 'finding')?.detail).toContain(`e.g. real.duckdb.${dead}.tmp`);
    expect((await doctor(h, '--db', link, '--fix')).code).toBe(0);
    expect(existsSync(left)).toBe(false);
  });

  it('passes over a walk that a run loaded and removed between the listing of the spool and its reading (no empty walk to discard)', async () => {
    const window = { start: '2026-03-01', end: '2026-03-02' };
    await spoolCompletedWalk(h, window, h.clock.now());
    const spool = new Spool(spoolDirFor(h.db));
    const listed = spool.walks();
    expect(walkFacts(listed, spool.root)).toEqual([expect.objectContaining({ window, completed: expect.objectContaining({ rows: expect.any(Number) }) })]);
    // Loaded and removed by a run just now.
    listed[0]!.remove();
    expect(walkFacts(listed, spool.root)).toEqual([]);
  });

  it('moves all of a journal whose run was killed during a write, also the part that write had taken', async () => {
    await h.run(EXPORT);
    const spool = new Spool(spoolDirFor(h.db));
    const journal = new RequestJournal(spool.requestsDir, 'killed-run');
    const attempt = { scope: 'analytics@http://127.0.0.1', method: 'GET', path: '/v1/analytics/docs/visitors', startedAt: h.clock.now() };
    const made = (): string => {
      const id = journal.begin(attempt);
      journal.end(id, attempt, 200, 3);
      return id;
    };
    const ids = [made(), made()];
    // The run's write took its journal (`….jsonl.1.ingesting`) and was killed before it committed
    // (its hold died with it); its next attempt went to a fresh journal file.
    journal.release(journal.take());
    ids.push(made());
    journal.close();
    expect(readdirSync(spool.requestsDir).sort()).toEqual([expect.stringMatching(/-killed-run\.jsonl$/), expect.stringMatching(/-killed-run\.jsonl\.1\.ingesting$/)]);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    const logged = await queryDb<{ request_id: string }>(h, `SELECT request_id FROM request_log WHERE run_id = 'killed-run' ORDER BY request_id`);
    expect(logged.map((r) => r.request_id)).toEqual([...ids].sort());
    expect(readdirSync(spool.requestsDir)).toEqual([]);
  });

  it('reports a row_count that disagrees with the page rows, and a missing totals row; does not guess a fix, and names the command that mends each', async () => {
    await h.run(EXPORT);
    await exec(h, `UPDATE loaded_windows SET row_count = row_count + 5 WHERE window_start = '2026-03-03'`);
    await exec(h, `DELETE FROM visitor_totals WHERE window_start = '2026-03-01'`);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    const windows = rowsOf(checked).filter((r) => r.check === 'windows');
    expect(windows).toHaveLength(2);
    const hint = 'to fetch it again: (docpipe export visitors --project docs --from (\\S+) --to (\\S+) --window day --refresh)$';
    expect(windows[0]!.detail).toMatch(new RegExp(`^visitors docs \\[2026-03-01, 2026-03-02\\): loaded, but has no totals row; ${hint}`));
    expect(windows[1]!.detail).toMatch(new RegExp(`^visitors docs \\[2026-03-03, 2026-03-04\\): loaded_windows\\.row_count is (\\d+), page_visitors holds (\\d+) paths; ${hint}`));
    const [before] = await queryDb<{ row_count: bigint }>(h, `SELECT row_count FROM loaded_windows WHERE window_start = '2026-03-03'`);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(1);
    expect(summaryOf(fixed)).toMatchObject({ finding: 2, fixed: 0 });
    expect(await queryDb(h, `SELECT row_count FROM loaded_windows WHERE window_start = '2026-03-03'`)).toEqual([before]);
    // The commands named mend them: each window fetched again, whole.
    for (const w of windows) {
      const command = new RegExp(hint).exec(w.detail)![1]!.split(' ').slice(1);
      expect((await h.run(command)).code).toBe(0);
    }
    expect((await doctor(h)).code).toBe(0);
  });

  it('finds page and totals rows of a window that was never loaded; --fix deletes them', async () => {
    await h.run(EXPORT);
    await exec(h, `DELETE FROM loaded_windows WHERE window_start = '2026-03-01'`);
    const checked = await doctor(h);
    expect(checked.code).toBe(1);
    expect(rowsOf(checked).find((r) => r.check === 'orphans')?.detail).toMatch(
      /^visitors docs \[2026-03-01, 2026-03-02\): \d+ rows in page_visitors and a totals row but no loaded_windows row$/,
    );
    const fixed = await doctor(h, '--fix');
    expect(fixed.code).toBe(0);
    expect(
      await queryDb(h, `SELECT (SELECT count(*) FROM page_visitors WHERE window_start = '2026-03-01') AS pages,
                             (SELECT count(*) FROM visitor_totals WHERE window_start = '2026-03-01') AS totals`),
    ).toEqual([{ pages: 0n, totals: 0n }]);
    // The other windows are untouched.
    expect(await queryDb(h, `SELECT count(*) AS n FROM visitor_totals`)).toEqual([{ n: 2n }]);
  });

  it('a completed walk whose pages DuckDB cannot read blocks no other load; doctor --fix discards it and the next export fetches the window again', async () => {
    await spoolCompletedWalk(h, { start: '2026-03-03', end: '2026-03-04' }, h.clock.now() - 3_600_000);
    const damaged = { start: '2026-03-04', end: '2026-03-05' };
    await spoolCompletedWalk(h, damaged, h.clock.now() - 3_600_000);
    // A page damaged on disk: a count that is no number (the walk checked it was one).
    const file = new Spool(spoolDirFor(h.db)).walk({ metric: 'visitors', projectId: 'docs' }, damaged).pagesFile;
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf('"visitors":[');
    writeFileSync(file, text.slice(0, at) + text.slice(at).replace(/"human":\d+/, '"human":"x"'));
    const views = await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
    expect(views.code, views.stderr).toBe(1);
    // The views and the other walk are loaded all the same; the damaged walk is named, and stays.
    expect(summaryOf(views)).toMatchObject({ windowsLoaded: 3, windowsFromSpool: 1, windowsFailed: 1, requests: 4 });
    const failed = logLines(views).filter((l) => l.event === 'window failed');
    expect(failed).toEqual([expect.objectContaining({ metric: 'visitors', window_start: '2026-03-04', error: expect.stringMatching(/^its spooled pages cannot be loaded \(docpipe doctor --fix discards them, and the next run fetches the window again\): .*JSON/) })]);
    expect(await queryDb(h, `SELECT metric, strftime(window_start, '%Y-%m-%d') AS day FROM loaded_windows ORDER BY ALL`)).toEqual([
      { metric: 'views', day: '2026-03-01' },
      { metric: 'views', day: '2026-03-02' },
      { metric: 'visitors', day: '2026-03-03' },
    ]);
    expect(existsSync(file)).toBe(true);
    const fixed = await doctor(h, '--fix');
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(rowsOf(fixed).map((r) => r.detail)).toContainEqual(
      expect.stringMatching(/^visitors docs \[2026-03-04, 2026-03-05\): discarded a completed walk whose pages cannot be loaded \(the next export fetches the window again\): /),
    );
    expect(existsSync(file)).toBe(false);
    expect((await doctor(h)).code).toBe(0);
  });

  it('a folder docpipe did not name (a bad % escape) in the spool is passed over, not a crash of doctor, export and status', async () => {
    expect((await h.run(EXPORT)).code).toBe(0);
    const stray = join(spoolDirFor(h.db), 'walks', 'visitors', 'docs 100%');
    mkdirSync(stray, { recursive: true });
    writeFileSync(join(stray, '2026-03-01_2026-03-02.jsonl'), '');
    for (const args of [['doctor'], ['doctor', '--fix'], ['status'], [...EXPORT, '--refresh']]) {
      const result = await h.run(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr).not.toMatch(/URI malformed/);
    }
  });

  it('a walk of another series that an export loads from the spool is counted as planned and loaded (planned = skipped + loaded)', async () => {
    await spoolCompletedWalk(h, { start: '2026-03-03', end: '2026-03-04' }, h.clock.now() - 3_600_000);
    const result = await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ windowsPlanned: 3, windowsSkipped: 0, windowsLoaded: 3, windowsFromSpool: 1, windowsLeft: 0 });
  });

  it('export recovers a spooled walk through the same path: loaded first, not fetched, overtaken ones dropped', async () => {
    await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02']);
    const { rows } = await spoolCompletedWalk(h, { start: '2026-03-03', end: '2026-03-04' }, h.clock.now() - 3_600_000);
    await spoolCompletedWalk(h, { start: '2026-03-01', end: '2026-03-02' }, h.clock.now() - DAY);
    const before = h.requests('/visitors');
    const result = await h.run(EXPORT);
    expect(result.code).toBe(0);
    // 2026-03-01 was loaded, 2026-03-03 came from the spool: only 2026-03-02 is fetched (2 pages).
    expect(summaryOf(result)).toMatchObject({ windowsPlanned: 3, windowsLoaded: 2, windowsFromSpool: 1, windowsSkipped: 1, requests: 2 });
    expect(h.requests('/visitors') - before).toBe(2);
    expect(await queryDb(h, `SELECT run_id, row_count FROM loaded_windows WHERE window_start = '2026-03-03'`)).toEqual([
      { run_id: 'crashed-run', row_count: BigInt(rows) },
    ]);
    expect(new Spool(spoolDirFor(h.db)).walks()).toEqual([]);
    expect((await doctor(h)).code).toBe(0);
  });

  it('refuses a database that does not exist (exit 2), with or without --fix, and creates nothing', async () => {
    const missing = join(h.dir, 'nope.duckdb');
    for (const args of [['doctor'], ['doctor', '--fix']]) {
      const result = await h.run([...args, '--db', missing]);
      expect(result.code).toBe(2);
      expect(asText(result.stderr).trim()).toBe(`docpipe: database '${missing}' does not exist (check --db or DOCPIPE_DB)`);
    }
    expect(existsSync(missing)).toBe(false);
    const bad = await h.run(['doctor', '--format', 'csv']);
    expect(bad.code).toBe(2);
    expect(asText(bad.stderr)).toMatch(/csv/);
  });
});

describe('doctor findings (pure)', () => {
  it('the command a finding suggests quotes a project id the shell would read otherwise', () => {
    for (const id of ['docs', 'p=ü&x', "it's", 'a b', '$(touch x)', 'semi;colon', 'star*']) {
      const echoed = spawnSync('sh', ['-c', `printf %s ${shellWord(id)}`], { encoding: 'utf8' });
      expect(echoed.stdout, id).toBe(id);
    }
    expect(shellWord('docs')).toBe('docs');
  });

  it('grainOf names the grain views.sql\'s window_grain names, for windows of every span from every day of two years', async () => {
    const db = await Database.open(':memory:');
    try {
      const rows = await db.all<{ s: string; e: string; g: string }>(
        `SELECT CAST(s AS DATE)::VARCHAR AS s, CAST(CAST(s AS DATE) + span AS VARCHAR) AS e, window_grain(CAST(s AS DATE), CAST(s AS DATE) + span) AS g
           FROM range(DATE '2023-12-01', DATE '2026-02-01', INTERVAL 1 DAY) r(s), (VALUES (1), (2), (7), (14), (28), (29), (30), (31)) t(span)`,
      );
      expect(rows.length).toBeGreaterThan(6000);
      expect(new Set(rows.map((r) => r.g))).toEqual(new Set(['day', 'week', 'month', 'range']));
      expect(rows.filter((r) => grainOf({ start: r.s, end: r.e }) !== r.g)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('grainOf: the grain the named command fetches a window by (a week or month still running is no range: a range may not end in the future)', () => {
    expect(grainOf({ start: '2026-03-01', end: '2026-03-02' })).toBe('day');
    expect(grainOf({ start: '2026-11-23', end: '2026-11-30' })).toBe('week');
    expect(grainOf({ start: '2026-11-24', end: '2026-12-01' })).toBe('range'); // 7 days from a Tuesday
    expect(grainOf({ start: '2026-02-01', end: '2026-03-01' })).toBe('month');
    expect(grainOf({ start: '2024-02-01', end: '2024-03-01' })).toBe('month');
    expect(grainOf({ start: '2026-12-01', end: '2027-01-01' })).toBe('month');
    expect(grainOf({ start: '2026-02-02', end: '2026-03-02' })).toBe('range');
    expect(grainOf({ start: '2026-03-01', end: '2026-03-31' })).toBe('range');
  });

  const w = (over: Partial<WindowFacts> = {}): WindowFacts => ({
    metric: 'visitors',
    projectId: 'docs',
    window: { start: '2026-03-01', end: '2026-03-02' },
    loaded: true,
    rowCount: 10,
    fetchedAt: Date.parse('2026-03-05T00:00:00Z'),
    totals: true,
    rows: 10,
    paths: 10,
    duplicatePaths: 0,
    duplicateExample: null,
    ...over,
  });
  const statuses = (findings: { check: string; status: string }[]): string[] => findings.map((f) => `${f.check}:${f.status}`);

  it.each([
    ['a sound window', w(), ['grain:ok', 'windows:ok', 'orphans:ok']],
    ['a doubled path', w({ rows: 12, duplicatePaths: 1, duplicateExample: '/a' }), ['grain:finding', 'windows:ok', 'orphans:ok']],
    ['a miscount', w({ rowCount: 9 }), ['grain:ok', 'windows:finding', 'orphans:ok']],
    ['no totals row', w({ totals: false }), ['grain:ok', 'windows:finding', 'orphans:ok']],
    ['a count not recorded', w({ rowCount: null }), ['grain:ok', 'windows:ok', 'orphans:ok']],
    ['an empty loaded window', w({ rowCount: 0, rows: 0, paths: 0 }), ['grain:ok', 'windows:ok', 'orphans:ok']],
    ['page rows without bookkeeping', w({ loaded: false, rowCount: null, totals: false }), ['grain:ok', 'windows:ok', 'orphans:finding']],
    ['a totals row alone', w({ loaded: false, rowCount: null, rows: 0, paths: 0 }), ['grain:ok', 'windows:ok', 'orphans:finding']],
  ])('windowFindings: %s', (_name, facts, expected) => {
    expect(statuses(windowFindings([facts]))).toEqual(expected);
  });

  it('names the window and the repair of each finding', () => {
    const findings = windowFindings([
      w({ rows: 13, paths: 10, duplicatePaths: 2, duplicateExample: '/a' }),
      w({ window: { start: '2026-03-02', end: '2026-03-03' }, loaded: false, rowCount: null, totals: false, rows: 4, paths: 4 }),
    ]);
    expect(findings[0]).toEqual({
      check: 'grain',
      status: 'finding',
      detail: 'visitors docs [2026-03-01, 2026-03-02): 3 extra rows for 2 paths held more than once (e.g. /a)',
      repair: { kind: 'dedupe', metric: 'visitors', projectId: 'docs', window: { start: '2026-03-01', end: '2026-03-02' } },
    });
    expect(findings.find((f) => f.check === 'orphans')).toEqual({
      check: 'orphans',
      status: 'finding',
      detail: 'visitors docs [2026-03-02, 2026-03-03): 4 rows in the page table but no loaded_windows row',
      repair: { kind: 'delete-orphans', metric: 'visitors', projectId: 'docs', window: { start: '2026-03-02', end: '2026-03-03' } },
    });
  });

  it('runIsAlive: a missing pid is a crash; otherwise the run\'s process, with its start, is checked', () => {
    const seen: ProcessRef[] = [];
    const alive = (ref: ProcessRef): boolean | null => {
      seen.push(ref);
      return ref.host === 'elsewhere' ? null : ref.pid === 42;
    };
    expect(runIsAlive({ pid: 42, host: 'box', process_start: '5.abcd0123.9' }, alive)).toBe(true);
    expect(seen).toEqual([{ pid: 42, host: 'box', start: '5.abcd0123.9' }]);
    expect(runIsAlive({ pid: 7, host: 'box', process_start: null }, alive)).toBe(false);
    expect(seen[1]).toEqual({ pid: 7, host: 'box' });
    expect(runIsAlive({ pid: null, host: null }, alive)).toBe(false);
    expect(seen).toHaveLength(2);
    expect(runIsAlive({ pid: 42, host: 'elsewhere' }, alive)).toBe(null);
  });

  it('runFindings: only runs whose process is gone are findings, with a repair', () => {
    const run = (runId: string, alive: boolean | null): RunFacts => ({ runId, command: 'sync', startedAt: 0, pid: 5, host: 'box', alive });
    const findings = runFindings([run('a', false), run('b', true), run('c', null)]);
    expect(statuses(findings)).toEqual(['runs:finding', 'runs:info', 'runs:info']);
    expect(findings[0]?.repair).toEqual({ kind: 'mark-crashed', runId: 'a' });
    expect(findings[2]?.detail).toMatch(/on host box, which cannot be checked/);
    expect(runFindings([])).toEqual([{ check: 'runs', status: 'ok', detail: 'no run left running' }]);
  });

  it('spoolFindings: live owners and fresh walks are info; stale, bare and completed walks are findings', () => {
    const now = Date.parse('2026-03-10T00:00:00Z');
    const walk = (over: Partial<WalkFacts>): WalkFacts => ({
      metric: 'views',
      projectId: 'docs',
      window: { start: '2026-03-01', end: '2026-03-02' },
      ownerLive: false,
      ownerPid: 9,
      completed: null,
      startedAt: now - DAY,
      idleMs: DAY,
      pages: 2,
      ...over,
    });
    const findings = spoolFindings(
      [
        walk({ ownerLive: true, completed: { fetchedAt: now, rows: 3 } }),
        walk({}),
        walk({ startedAt: now - STALE_WALK_MS - 1, idleMs: STALE_WALK_MS + 1 }),
        walk({ startedAt: null }),
        // Started long ago, resumed yesterday: the next export goes on with it.
        walk({ startedAt: now - STALE_WALK_MS - 1 }),
        walk({ completed: { fetchedAt: now - DAY, rows: 3 } }),
      ],
      [
        { name: '1-a.jsonl', pid: 1, live: true },
        { name: '2-b.jsonl', pid: 2, live: false },
        { name: '2-b.jsonl.1.ingesting', pid: 2, live: false },
      ],
      () => undefined,
      now,
    );
    expect(statuses(findings)).toEqual([
      'spool:info',
      'spool:info',
      'spool:finding',
      'spool:finding',
      'spool:info',
      'spool:finding',
      'journal:finding',
      'journal:info',
    ]);
    expect(findings.map((f) => f.repair?.kind ?? null)).toEqual([null, null, 'discard-walk', 'discard-walk', null, 'recover-walks', 'ingest-journal', null]);
    expect(findings[2]?.detail).toMatch(/started .* and not written since, more than 7 days ago: --fix discards it$/);
    expect(findings[6]?.detail).toMatch(/^2 request-journal files of ended processes \(pid 2\)/);
    expect(statuses(spoolFindings([], [], () => undefined, now))).toEqual(['spool:ok', 'journal:ok']);
  });

  it('diagnose: check order, the database overtaking a spooled walk, one repair each, exit status', () => {
    const fetched = Date.parse('2026-03-05T00:00:00Z');
    const facts: DoctorFacts = {
      windows: [w({ fetchedAt: fetched })],
      runs: [{ runId: 'r', command: null, startedAt: null, pid: null, host: null, alive: false }],
      walks: [
        { metric: 'visitors', projectId: 'docs', window: { start: '2026-03-01', end: '2026-03-02' }, ownerLive: false, ownerPid: null, completed: { fetchedAt: fetched, rows: 1 }, startedAt: fetched, idleMs: DAY, pages: 1 },
        { metric: 'visitors', projectId: 'docs', window: { start: '2026-03-02', end: '2026-03-03' }, ownerLive: false, ownerPid: null, completed: { fetchedAt: fetched, rows: 1 }, startedAt: fetched, idleMs: DAY, pages: 1 },
      ],
      journals: [],
    };
    const findings = diagnose(facts, fetched + DAY);
    expect(findings.map((f) => f.check)).toEqual(['grain', 'windows', 'orphans', 'views', 'spool', 'spool', 'journal', 'runs']);
    expect(findings[4]?.detail).toMatch(/overtaken: --fix discards it/);
    expect(findings[5]?.detail).toMatch(/not loaded: --fix loads it/);
    expect(planRepairs(findings)).toEqual([{ kind: 'recover-walks' }, { kind: 'mark-crashed', runId: 'r' }]);
    expect(hasFindings(findings)).toBe(true);
    expect(countByStatus(findings)).toEqual({ ok: 5, finding: 3, fixed: 0, info: 0 });
    expect(hasFindings(findings.filter((f) => f.status !== 'finding'))).toBe(false);
  });
});
