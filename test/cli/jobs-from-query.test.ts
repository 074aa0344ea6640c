/**
 * `docpipe jobs from-query`: prompts rendered from SQL rows, through the same ledger as `jobs
 * submit`, and the ready-made queries in sql/prompts/, against a database loaded from the
 * sandbox over HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { Database } from '../../src/load/database.js';
import { logLines, startHarness, summaryOf, type Harness, asText } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const TOP = 'sql/prompts/top-pages.sql';
const TEMPLATE = 'Review {path}: {total} unique visitors on {window_start}, rank {rank}.';
const FAST = ['--project', 'docs', '--poll-interval', '0.5'];

let h: Harness;
let loaded: string;

async function all<T extends Record<string, unknown>>(db: string, sql: string): Promise<T[]> {
  return Database.with(db, { readOnly: true }, (d) => d.all<T>(sql));
}

beforeAll(async () => {
  h = await startHarness(NOW, { jobs: { pollsToFinish: 1 } });
  // Daily windows up to yesterday, and two ISO weeks (Feb 23 and Mar 2).
  const days = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-10', '--requests-per-hour', '1000']);
  expect(days.code, days.stderr).toBe(0);
  const weeks = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-02-23', '--to', '2026-03-09', '--window', 'week']);
  expect(weeks.code, weeks.stderr).toBe(0);
  loaded = join(h.dir, 'loaded.duckdb');
  copyFileSync(h.db, loaded);
});

afterAll(async () => {
  await h.close();
});

describe('docpipe jobs from-query', () => {
  let db: string;
  let n = 0;
  beforeEach(() => {
    // Each test starts from the loaded analytics and an empty ledger.
    db = join(h.dir, `test-${++n}.duckdb`);
    copyFileSync(loaded, db);
  });

  /** The top pages of the newest day, straight from the table. */
  async function topPages(): Promise<{ path: string; total: bigint }[]> {
    return all(db, `SELECT path, total FROM page_visitors WHERE window_start = '2026-03-09' AND window_end = '2026-03-10' ORDER BY total DESC, path LIMIT 10`);
  }

  it('--dry-run prints each rendered prompt whole, and sends nothing', async () => {
    const posts = h.requests('/job', 'POST');
    const result = await h.run(['jobs', 'from-query', '--file', TOP, '--template', TEMPLATE, ...FAST, '--dry-run', '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    const expected = (await topPages()).map((p, i) => `Review ${p.path}: ${p.total} unique visitors on 2026-03-09, rank ${i + 1}.`);
    expect(expected).toHaveLength(10);
    const printed = result.stdout.split('\n').filter((l) => l.startsWith('Review '));
    expect(printed).toEqual(expected);
    expect(result.stdout).toMatch(/^--- 1: sha256:[0-9a-f]{16} \(submit\)$/m);
    expect(result.stdout).toContain(`dry run: 10 prompts in ${TOP}, 10 would be submitted; no request made`);
    expect(h.requests('/job', 'POST')).toBe(posts);
  });

  it('a DECIMAL, an INTERVAL and a BLOB render in a prompt as DuckDB prints them', async () => {
    const sql = `SELECT 'p' AS id, 19.90::DECIMAL(6,2) AS price, 12345678901234567.89::DECIMAL(20,2) AS big, INTERVAL 90 MINUTE AS took, 'ab'::BLOB AS raw`;
    const result = await h.run(['jobs', 'from-query', sql, '--template', 'Price {price}, big {big}, took {took}, raw {raw}', ...FAST, '--dry-run', '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Price 19.90, big 12345678901234567.89, took 01:30:00, raw ab');
  });

  it('submits one job per row once; a re-run submits nothing and prints done', async () => {
    const before = h.sandbox.jobs().length;
    const first = await h.run(['jobs', 'from-query', '--file', TOP, '--template', TEMPLATE, ...FAST, '--db', db]);
    expect(first.code, first.stderr).toBe(0);
    expect(summaryOf(first)).toMatchObject({ command: 'jobs from-query', total: 10, submitted: 10 });
    const created = h.sandbox.jobs().slice(before);
    const expected = (await topPages()).map((p, i) => `Review ${p.path}: ${p.total} unique visitors on 2026-03-09, rank ${i + 1}.`);
    expect(created.map((j) => j.prompt)).toEqual(expect.arrayContaining(expected));
    expect(created).toHaveLength(10);
    const ledger = await all<{ prompt: string; source_file: string; status: string }>(db, 'SELECT prompt, source_file, status FROM agent_jobs ORDER BY prompt');
    expect(ledger.map((r) => r.prompt)).toEqual([...expected].sort());
    expect(new Set(ledger.map((r) => r.source_file))).toEqual(new Set([TOP]));
    expect(ledger.every((r) => ['completed', 'failed', 'archived'].includes(r.status))).toBe(true);

    const again = await h.run(['jobs', 'from-query', '--file', TOP, '--template', TEMPLATE, ...FAST, '--db', db]);
    expect(again.code).toBe(0);
    expect(summaryOf(again)).toMatchObject({ total: 10, submitted: 0 });
    expect(h.sandbox.jobs().length - before).toBe(10);
    const dry = await h.run(['jobs', 'from-query', '--file', TOP, '--template', TEMPLATE, ...FAST, '--dry-run', '--db', db]);
    expect(dry.stdout).toContain('10 prompts in sql/prompts/top-pages.sql, 0 would be submitted');
  });

  it('resumes after the request cap stopped it: each row is submitted exactly once across runs', async () => {
    const sql = `SELECT path, total FROM page_visitors WHERE window_start = '2026-03-09' AND window_end = '2026-03-10' ORDER BY total DESC, path LIMIT 6`;
    const template = 'Tighten {path} ({total} visitors) [pr]';
    const before = h.sandbox.jobs().length;
    const first = await h.run(['jobs', 'from-query', sql, '--template', template, ...FAST, '--db', db, '--max-requests', '3', '--concurrency', '1']);
    expect(first.code).toBe(75);
    expect(summaryOf(first)).toMatchObject({ total: 6, stopped: 'budget' });
    const afterFirst = h.sandbox.jobs().length - before;
    expect(afterFirst).toBeGreaterThan(0);
    expect(afterFirst).toBeLessThan(6);
    const second = await h.run(['jobs', 'from-query', sql, '--template', template, ...FAST, '--db', db]);
    expect(second.code, second.stderr).toBe(0);
    expect(summaryOf(second)).toMatchObject({ total: 6, submitted: 6 - afterFirst });
    const prompts = h.sandbox.jobs().slice(before).map((j) => j.prompt);
    expect(prompts).toHaveLength(6);
    expect(new Set(prompts).size).toBe(6);
    const ledger = await all<{ source_file: string }>(db, 'SELECT DISTINCT source_file FROM agent_jobs');
    expect(ledger).toEqual([{ source_file: 'query' }]);
  });

  it('keys prompts by an id column: a changed text with the same id is not submitted again', async () => {
    const sql = (word: string) => `SELECT 'page:' || path AS id, path, '${word}' AS verb FROM page_visitors WHERE window_start = '2026-03-09' AND window_end = '2026-03-10' ORDER BY total DESC, path LIMIT 2`;
    const before = h.sandbox.jobs().length;
    const first = await h.run(['jobs', 'from-query', sql('Shorten'), '--template', '{verb} {path} [nopr]', ...FAST, '--db', db]);
    expect(first.code, first.stderr).toBe(0);
    const keys = await all<{ prompt_key: string }>(db, 'SELECT prompt_key FROM agent_jobs ORDER BY prompt_key');
    expect(keys.every((k) => k.prompt_key.startsWith('page:/'))).toBe(true);
    const again = await h.run(['jobs', 'from-query', sql('Lengthen'), '--template', '{verb} {path} [nopr]', ...FAST, '--db', db]);
    expect(again.code).toBe(0);
    expect(summaryOf(again)).toMatchObject({ total: 2, submitted: 0 });
    expect(h.sandbox.jobs().length - before).toBe(2);
  });

  it.each([
    [['--template', 'Fix {pathh} ({total})'], "docpipe: --template field {pathh} matches no column of the query (columns: project_id, path, window_start, window_end, total, human, ai, ai_share, rank)"],
    [['--template', 'Fix {path'], "docpipe: --template: '{' at character 5 is not closed (write {{ for a literal brace)"],
    [['--template', 'Fix {path}', '--concurrency', '0'], "docpipe: invalid --concurrency '0': expected a whole number >= 1"],
    // Typed without a value, last or before another option: yargs took the default.
    [['--template', 'Fix {path}', '--concurrency'], 'docpipe: invalid --concurrency: no value given; expected a whole number >= 1'],
    [['--template', 'Fix {path}', '--jobs-per-hour', '--dry-run'], 'docpipe: invalid --jobs-per-hour: no value given; expected a whole number >= 1'],
  ])('bad input %j exits 2 with one line, before any request or write', async (args, line) => {
    const requests = h.sandbox.requests.length;
    const result = await h.run(['jobs', 'from-query', '--file', TOP, ...args, ...FAST, '--db', db]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr).trim()).toBe(line);
    expect(h.sandbox.requests.length).toBe(requests);
    expect(await all(db, 'SELECT * FROM agent_jobs')).toEqual([]);
  });

  it('works on a database of an earlier release: the shipped queries get this release\'s views and macros first', async () => {
    const old = join(h.dir, 'docpipe-0.1.0.duckdb');
    writeFileSync(old, gunzipSync(readFileSync(new URL('../fixtures/db-0.1.0/docpipe.duckdb.gz', import.meta.url))));
    const before = h.sandbox.requests.length;
    const result = await h.run(['jobs', 'from-query', '--file', TOP, '--template', TEMPLATE, ...FAST, '--db', old, '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^dry run: [1-9]\d* prompts in sql\/prompts\/top-pages\.sql/m);
    expect(h.sandbox.requests).toHaveLength(before);

  });

  it('bad SQL and a missing SQL file exit 2 naming them; a query without rows submits nothing', async () => {
    const bad = await h.run(['jobs', 'from-query', 'SELECT nope FROM page_visitors', '--template', '{nope}', ...FAST, '--db', db]);
    expect(bad.code).toBe(2);
    expect(asText(bad.stderr).trim()).toMatch(/^docpipe: query: Binder Error: .*nope/);
    const missing = await h.run(['jobs', 'from-query', '--file', 'sql/prompts/nope.sql', '--template', '{x}', ...FAST, '--db', db]);
    expect(missing.code).toBe(2);
    expect(asText(missing.stderr).trim()).toBe("docpipe: cannot read --file 'sql/prompts/nope.sql'");
    // No rows: still a batch's summary (one JSON line), and a --results file of this run (an
    // earlier run's outcomes are not left in it).
    const results = join(h.dir, 'none-results.jsonl');
    writeFileSync(results, '{"prompt_key":"old","status":"completed"}\n');
    const none = await h.run(['jobs', 'from-query', 'SELECT path FROM page_visitors WHERE false', '--template', '{path}', ...FAST, '--db', db, '--results', results]);
    expect(none.code, none.stderr).toBe(0);
    expect(summaryOf(none)).toMatchObject({ event: 'summary', command: 'jobs from-query', total: 0, submitted: 0, counts: {}, stopped: null, jobs: [] });
    expect(none.stdout.trim().split('\n')).toHaveLength(1);
    expect(logLines(none).find((l) => l.event === 'nothing to submit')).toMatchObject({ detail: 'the query returned no rows: nothing to submit' });
    expect(readFileSync(results, 'utf8')).toBe('');
    expect(logLines(none).filter((l) => l.level === 'error')).toEqual([]);
    // Nothing to send needs no key.
    const noKey = await h.run(['jobs', 'from-query', 'SELECT path FROM page_visitors WHERE false', '--template', '{path}', ...FAST, '--db', db], { withKey: false });
    expect(noKey.code, noKey.stderr).toBe(0);
    const dry = await h.run(['jobs', 'from-query', 'SELECT path FROM page_visitors WHERE false', '--template', '{path}', ...FAST, '--db', db, '--dry-run']);
    expect(dry.stdout).toBe('the query returned no rows: nothing to submit\n');
  });

  it("a row is named by its row of the query's result, other projects' rows counted", async () => {
    const rows = `SELECT * FROM (VALUES ('other', 'p0'), ('docs', 'p1'), ('other', 'p2'), ('docs', NULL)) v(project_id, path)`;
    const empty = await h.run(['jobs', 'from-query', rows, '--template', '{path}', ...FAST, '--db', db, '--dry-run']);
    expect(empty.code).toBe(2);
    expect(asText(empty.stderr).trim()).toBe('docpipe: query row 4: the template renders an empty prompt');
    const twice = `SELECT * FROM (VALUES ('other', 'p0'), ('docs', 'p1'), ('docs', 'p1')) v(project_id, path)`;
    const dup = await h.run(['jobs', 'from-query', twice, '--template', 'Review {path}', ...FAST, '--db', db, '--dry-run']);
    expect(dup.code, dup.stderr).toBe(0);
    expect(logLines(dup).find((l) => l.event === 'query prompts')).toMatchObject({ warning: 'query:3: duplicate of line 2, submitted once' });
  });

  it('rows of other projects (a project_id column) are left out, not sent to --project, and said so', async () => {
    const rows = `SELECT * FROM (VALUES ('docs', '/a'), ('other', '/b'), ('docs', '/c')) t(project_id, path)`;
    const result = await h.run(['jobs', 'from-query', rows, '--template', 'Review {path}', ...FAST, '--db', db, '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^dry run: 2 prompts in query, 2 would be submitted/m);
    expect(result.stdout).not.toContain('/b');
    expect(logLines(result).find((l) => l.event === 'rows of other projects left out')).toMatchObject({ project: 'docs', rows: 1 });
    const others = await h.run(['jobs', 'from-query', `SELECT 'other' AS project_id, '/b' AS path`, '--template', 'Review {path}', ...FAST, '--db', db]);
    expect(others.code, others.stderr).toBe(0);
    expect(summaryOf(others)).toMatchObject({ event: 'summary', total: 0, submitted: 0 });
    expect(logLines(others).find((l) => l.event === 'nothing to submit')).toMatchObject({ detail: 'the query returned no rows of project docs: nothing to submit' });
    expect(h.sandbox.jobs().filter((j) => String(j.prompt).includes('/b'))).toEqual([]);
  });
});

describe('the ready-made queries in sql/prompts/', () => {
  /** A DATE as `docpipe query --format json` prints it (an ISO timestamp at midnight UTC). */
  const day = (value: unknown): string => String(value).slice(0, 10);

  async function query(file: string): Promise<Record<string, unknown>[]> {
    const result = await h.run(['query', '--file', file, '--format', 'json', '--db', loaded]);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout.trim() === '' ? [] : result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  it('the example templates of README and of each query file fit their query (a dry run renders them)', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const examples = [...readme.matchAll(/--file (sql\/prompts\/[a-z-]+\.sql) \\\n\s+--template "([^"]+)"/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(examples.map(([file]) => file).sort()).toEqual(readdirSync('sql/prompts').map((f) => `sql/prompts/${f}`).sort());
    for (const [file, template] of examples) {
      expect(readFileSync(file, 'utf8'), file).toContain(template);
      const result = await h.run(['jobs', 'from-query', '--file', file, '--template', template, '--project', 'docs', '--dry-run', '--db', loaded]);
      expect(result.code, `${file}: ${result.stderr}`).toBe(0);
      expect(result.stdout, file).toMatch(/dry run: \d+ prompts in|the query returned no rows/);
    }
  });

  it('ai-share-rising: the pages whose AI share rose most from the week of Feb 23 to the week of Mar 2', async () => {
    const rows = await query('sql/prompts/ai-share-rising.sql');
    // The same answer, computed here from the weekly rows.
    const weekly = await all<{ path: string; week: string; ai: bigint; total: bigint }>(
      loaded,
      `SELECT path, strftime(window_start, '%Y-%m-%d') AS week, ai, total FROM page_visitors WHERE window_end - window_start = 7`,
    );
    const share = new Map<string, { prev?: number; cur?: number; prevTotal?: bigint; curTotal?: bigint }>();
    for (const r of weekly) {
      const s = share.get(r.path) ?? {};
      if (r.week === '2026-02-23') Object.assign(s, { prev: Number(r.ai) / Number(r.total), prevTotal: r.total });
      if (r.week === '2026-03-02') Object.assign(s, { cur: Number(r.ai) / Number(r.total), curTotal: r.total });
      share.set(r.path, s);
    }
    const expected = [...share.entries()]
      .filter(([, s]) => s.prev !== undefined && s.cur !== undefined && s.prevTotal! >= 20n && s.curTotal! >= 20n && s.cur > s.prev)
      .sort(([pa, a], [pb, b]) => b.cur! - b.prev! - (a.cur! - a.prev!) || (pa < pb ? -1 : 1))
      .slice(0, 10)
      .map(([path]) => path);
    expect(expected.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.path)).toEqual(expected);
    expect(rows.every((r) => day(r.week_start) === '2026-03-02' && Number(r.ai_share) > Number(r.previous_ai_share))).toBe(true);
  });

  it('vanished-pages: high-traffic pages of Mar 8 missing from Mar 9, and none while nothing vanished', async () => {
    expect(await query('sql/prompts/vanished-pages.sql')).toEqual([]);
    const copy = join(h.dir, 'vanished.duckdb');
    copyFileSync(loaded, copy);
    // Two busy pages and one quiet one disappear from the newest day.
    const gone = await Database.with(copy, {}, async (d) => {
      const rows = await d.all<{ path: string; total: bigint }>(
        `SELECT path, total FROM page_visitors WHERE window_start = '2026-03-08' AND window_end = '2026-03-09' ORDER BY total DESC, path`,
      );
      const picked = [rows[0]!, rows[3]!, rows.at(-1)!];
      for (const p of picked) await d.run(`DELETE FROM page_visitors WHERE window_start = '2026-03-09' AND window_end = '2026-03-10' AND path = $p`, { p: p.path });
      return picked;
    });
    const result = await h.run(['query', '--file', 'sql/prompts/vanished-pages.sql', '--format', 'json', '--db', copy]);
    const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const busy = gone.filter((g) => g.total >= 50n);
    expect(busy.length).toBeGreaterThan(0);
    expect(rows.map((r) => [r.path, r.previous_visitors])).toEqual(busy.map((g) => [g.path, Number(g.total)]));
    expect(rows.every((r) => day(r.newest_window_start) === '2026-03-09' && day(r.previous_window_start) === '2026-03-08')).toBe(true);
  });
});
