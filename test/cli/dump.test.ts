/** `docpipe dump`: hive-partitioned files read back with DuckDB, re-runs that replace. */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/load/database.js';
import { DUMP_TABLES, MAX_PARTITIONS_PER_COPY, MAX_ROWS_PER_COPY } from '../../src/dump/plan-dump.js';
import { DUMP_LOCK } from '../../src/dump/dump-lock.js';
import { processStart, thisProcess } from '../../src/core/process-identity.js';
import type { Harness } from './harness.js';
import { PROJECT, buildFixture, select } from './analytics-fixture.js';
import { summaryOf, asText } from './harness.js';

const OTHER = 'other=docs:2'; // a project id that needs escaping in a folder name

let h: Harness;

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

/** Row counts per table and project, as DuckDB reads the lake back. */
async function lakeCounts(dir: string, format = 'parquet'): Promise<Record<string, Record<string, number>>> {
  const db = await Database.open(':memory:');
  try {
    const counts: Record<string, Record<string, number>> = {};
    for (const { name } of DUMP_TABLES) {
      const reader = format === 'parquet' ? 'read_parquet' : 'read_csv';
      const rows = await db.all<{ project_id: string; n: bigint }>(
        `SELECT project_id, count(*) AS n FROM ${reader}('${dir}/${name}/**/*.${format}', hive_partitioning = true) GROUP BY ALL`,
      );
      counts[name] = Object.fromEntries(rows.map((r) => [String(r.project_id), Number(r.n)]));
    }
    return counts;
  } finally {
    await db.close();
  }
}

async function dbCounts(where = 'true'): Promise<Record<string, Record<string, number>>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const { name, dateSql } of DUMP_TABLES) {
    const rows = await select<{ project_id: string; n: bigint }>(
      h,
      `SELECT project_id, count(*) AS n FROM (SELECT *, ${dateSql} AS d FROM ${name}) WHERE ${where} GROUP BY ALL`,
    );
    counts[name] = Object.fromEntries(rows.map((r) => [String(r.project_id), Number(r.n)]));
  }
  return counts;
}

beforeAll(async () => {
  h = await buildFixture({ paths: 40 });
  const other = await h.run(['export', 'visitors', '--project', OTHER, '--from', '2026-02-26', '--to', '2026-03-04']);
  expect(other.code, other.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('docpipe dump', () => {
  it('writes every table as zstd Parquet under project_id=/year=/month=, and DuckDB reads back every row', async () => {
    const out = join(h.dir, 'lake');
    const result = await h.run(['dump', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const expected = await dbCounts();
    expect(expected.page_visitors?.[PROJECT]).toBeGreaterThan(1000);
    expect(expected.agent_jobs?.[PROJECT]).toBe(5);
    expect(await lakeCounts(out)).toEqual(expected);
    const summary = summaryOf(result) as { tables: { table: string; rows: number }[] };
    expect(summary.tables.map((t) => [t.table, t.rows])).toEqual(
      DUMP_TABLES.map((t) => [t.name, Object.values(expected[t.name] ?? {}).reduce((a, b) => a + b, 0)]),
    );
    const listed = files(out);
    expect(listed).toContain('page_visitors/project_id=docs/year=2026/month=2/data_0.parquet');
    expect(listed).toContain('page_visitors/project_id=docs/year=2026/month=3/data_0.parquet');
    expect(listed).toContain(`visitor_totals/project_id=${encodeURIComponent(OTHER)}/year=2026/month=2/data_0.parquet`);
    expect(listed.every((f) => !f.startsWith('.'))).toBe(true); // no staging left behind
    const db = await Database.open(':memory:');
    try {
      const codecs = await db.all<{ c: string }>(`SELECT DISTINCT compression AS c FROM parquet_metadata('${out}/page_views/**/*.parquet')`);
      expect(codecs.map((r) => r.c)).toEqual(['ZSTD']);
      // Values survive: the same sum of visitors per window, and the project id from the path.
      const [lake] = await db.all<{ s: bigint }>(
        `SELECT sum(total) AS s FROM read_parquet('${out}/page_visitors/**/*.parquet', hive_partitioning = true) WHERE project_id = '${OTHER}'`,
      );
      const [orig] = await select<{ s: bigint }>(h, `SELECT sum(total) AS s FROM page_visitors WHERE project_id = '${OTHER}'`);
      expect(Number(lake!.s)).toBe(Number(orig!.s));
    } finally {
      await db.close();
    }
  });

  it('a lake of many projects is written a few projects at a time (DuckDB holds a writer per partition), every row once', async () => {
    // 130 projects of 2 months each: more partitions than one COPY writes.
    const many = join(h.dir, 'many.duckdb');
    const db = await Database.open(many);
    try {
      await db.run(`INSERT INTO page_visitors (project_id, window_start, window_end, path, human, ai, total, run_id, flags)
        SELECT 'p' || p, d::DATE, (d + INTERVAL 1 DAY)::DATE, '/page-' || x, x, 0, x, 'run', NULL
          FROM range(130) a(p), range(DATE '2026-01-30', DATE '2026-02-03', INTERVAL 1 DAY) b(d), range(3) c(x)`);
    } finally {
      await db.close();
    }
    expect(130 * 2).toBeGreaterThan(MAX_PARTITIONS_PER_COPY * 2);
    const out = join(h.dir, 'many-lake');
    const result = await h.run(['dump', '--out', out, '--db', many]);
    expect(result.code, result.stderr).toBe(0);
    const summary = summaryOf(result) as { tables: { table: string; rows: number; partitions: number }[] };
    expect(summary.tables.find((t) => t.table === 'page_visitors')).toEqual({ table: 'page_visitors', rows: 130 * 4 * 3, partitions: 260 });
    const reader = await Database.open(':memory:');
    try {
      const perProject = await reader.all<{ n: bigint; projects: bigint }>(
        `SELECT n, count(*) AS projects FROM (SELECT project_id, count(*) AS n FROM read_parquet('${out}/page_visitors/**/*.parquet', hive_partitioning = true) GROUP BY ALL) GROUP BY ALL`,
      );
      expect(perProject).toEqual([{ n: 12n, projects: 130n }]);
    } finally {
      await reader.close();
    }
    const listed = files(out);
    expect(listed.filter((f) => f.endsWith('.parquet'))).toHaveLength(260);
    expect(listed).toContain('page_visitors/project_id=p129/year=2026/month=1/data_0.parquet');
    expect(listed.every((f) => !f.startsWith('.'))).toBe(true);
  });

  it('a project with more rows than one COPY writes is split by months, every row once, a file a month', async () => {
    // One project, 5 months of 300,000 rows: over MAX_ROWS_PER_COPY, so its months go in more
    // than one COPY (the memory of a COPY grows with the rows it writes).
    const long = join(h.dir, 'long.duckdb');
    const db = await Database.open(long);
    try {
      await db.run(`INSERT INTO page_visitors (project_id, window_start, window_end, path, human, ai, total, run_id, flags)
        SELECT 'docs', d::DATE, (d + INTERVAL 1 DAY)::DATE, '/page-' || x, x % 7, 0, x % 7, 'run', NULL
          FROM range(DATE '2025-11-01', DATE '2026-04-01', INTERVAL 1 DAY) b(d), range(10000) c(x)
         WHERE extract(day FROM d) <= 30`);
    } finally {
      await db.close();
    }
    expect(5 * 300_000).toBeGreaterThan(MAX_ROWS_PER_COPY);
    const out = join(h.dir, 'long-lake');
    const result = await h.run(['dump', '--out', out, '--db', long]);
    expect(result.code, result.stderr).toBe(0);
    const summary = summaryOf(result) as { tables: { table: string; rows: number; partitions: number }[] };
    expect(summary.tables.find((t) => t.table === 'page_visitors')).toEqual({ table: 'page_visitors', rows: 28 * 10_000 + 4 * 300_000, partitions: 5 });
    const reader = await Database.open(':memory:');
    try {
      const perMonth = await reader.all<{ year: bigint; month: bigint; n: bigint; days: bigint; paths: bigint }>(
        `SELECT year, month, count(*) AS n, count(DISTINCT window_start) AS days, count(DISTINCT path) AS paths
           FROM read_parquet('${out}/page_visitors/**/*.parquet', hive_partitioning = true) GROUP BY ALL ORDER BY ALL`,
      );
      expect(perMonth.map((r) => [Number(r.year), Number(r.month), Number(r.n), Number(r.days), Number(r.paths)])).toEqual([
        [2025, 11, 300_000, 30, 10_000],
        [2025, 12, 300_000, 30, 10_000],
        [2026, 1, 300_000, 30, 10_000],
        [2026, 2, 280_000, 28, 10_000],
        [2026, 3, 300_000, 30, 10_000],
      ]);
    } finally {
      await reader.close();
    }
    expect(files(out).filter((f) => f.startsWith('page_visitors/'))).toEqual(
      ['2025/month=11', '2025/month=12', '2026/month=1', '2026/month=2', '2026/month=3'].map((m) => `page_visitors/project_id=docs/year=${m}/data_0.parquet`),
    );
  });

  it('a job row with no time is dumped in the partition without a month, and a re-run replaces it', async () => {
    const undated = join(h.dir, 'undated.duckdb');
    const db = await Database.open(undated);
    try {
      // Rows of 0.1.0, or of someone's own: no created_at, submitted_at or updated_at.
      await db.run(`INSERT INTO agent_jobs (project_id, prompt_key, prompt, status) VALUES ('docs', 'k1', 'Fix a', 'completed'), ('docs', 'k2', 'Fix b', 'failed')`);
      await db.run(`INSERT INTO agent_jobs (project_id, prompt_key, prompt, status, updated_at) VALUES ('docs', 'k3', 'Fix c', 'completed', TIMESTAMPTZ '2026-02-03 10:00:00+00')`);
    } finally {
      await db.close();
    }
    const out = join(h.dir, 'undated-lake');
    for (let run = 0; run < 2; run++) {
      const result = await h.run(['dump', '--out', out, '--db', undated]);
      expect(result.code, result.stderr).toBe(0);
      const summary = summaryOf(result) as { tables: { table: string; rows: number; partitions: number }[] };
      expect(summary.tables.find((t) => t.table === 'agent_jobs')).toEqual({ table: 'agent_jobs', rows: 3, partitions: 2 });
      const reader = await Database.open(':memory:');
      try {
        const rows = await reader.all<{ prompt_key: string; year: string; month: string }>(
          `SELECT prompt_key, year::VARCHAR AS year, month::VARCHAR AS month FROM read_parquet('${out}/agent_jobs/**/*.parquet', hive_partitioning = true, hive_types_autocast = false) ORDER BY prompt_key`,
        );
        expect(rows).toEqual([
          { prompt_key: 'k1', year: null, month: null },
          { prompt_key: 'k2', year: null, month: null },
          { prompt_key: 'k3', year: '2026', month: '2' },
        ]);
      } finally {
        await reader.close();
      }
    }
    expect(files(out).every((f) => !f.startsWith('.'))).toBe(true);
  });

  it('is safe to re-run: it replaces the files, never doubles the rows', async () => {
    const out = join(h.dir, 'rerun');
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    const first = files(out);
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    expect(files(out)).toEqual(first);
    expect(await lakeCounts(out)).toEqual(await dbCounts());
  });

  it('--project takes a comma-separated list, as every command does', async () => {
    const out = join(h.dir, 'listed');
    const listed = await h.run(['dump', '--out', out, '--project', `${PROJECT},${OTHER}`]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(await lakeCounts(out)).toEqual(await dbCounts());
  });

  it('--project rewrites that project only; --last rewrites the months it overlaps only', async () => {
    const out = join(h.dir, 'scoped');
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    const febDocs = join(out, 'page_visitors/project_id=docs/year=2026/month=2/data_0.parquet');
    const marDocs = join(out, 'page_visitors/project_id=docs/year=2026/month=3/data_0.parquet');
    const febOther = join(out, `page_visitors/project_id=${encodeURIComponent(OTHER)}/year=2026/month=2/data_0.parquet`);
    const before = (f: string): number => statSync(f).mtimeMs;
    const [feb, mar, other] = [before(febDocs), before(marDocs), before(febOther)];
    await new Promise((r) => setTimeout(r, 20));

    const byProject = await h.run(['dump', '--out', out, '--project', OTHER]);
    expect(byProject.code, byProject.stderr).toBe(0);
    expect([before(febDocs), before(marDocs)]).toEqual([feb, mar]);
    expect(before(febOther)).toBeGreaterThan(other);

    // Today is 2026-03-10: the last 7 days are in March, so only March is rewritten.
    const last = await h.run(['dump', '--out', out, '--last', '7d', '--log-format', 'json']);
    expect(last.code, last.stderr).toBe(0);
    expect(summaryOf(last)).toMatchObject({ from: '2026-03-03', to: '2026-03-10', last: '7d' });
    expect(before(febDocs)).toBe(feb);
    expect(before(marDocs)).toBeGreaterThan(mar);
    const march = summaryOf(last) as { tables: { table: string; rows: number }[] };
    const expected = await dbCounts(`d >= DATE '2026-03-01' AND d < DATE '2026-04-01'`);
    expect(march.tables.find((t) => t.table === 'page_visitors')?.rows).toBe(
      Object.values(expected.page_visitors ?? {}).reduce((a, b) => a + b, 0),
    );
    // Whatever was rewritten, the lake still holds every row once.
    expect(await lakeCounts(out)).toEqual(await dbCounts());
  });

  it('--format csv writes the same rows as CSV with a header', async () => {
    const out = join(h.dir, 'csv');
    const result = await h.run(['dump', '--out', out, '--format', 'csv', '--project', PROJECT]);
    expect(result.code, result.stderr).toBe(0);
    const expected = await dbCounts(`project_id = '${PROJECT}'`);
    expect(await lakeCounts(out, 'csv')).toEqual(expected);
    // A lake is in one format: a Parquet dump into it (the default) is refused before anything changes.
    const parquet = await h.run(['dump', '--out', out, '--last', '7d']);
    expect(parquet.code).toBe(2);
    // The range it chose (a log line), then the one error line.
    expect(asText(parquet.stderr).trim().split('\n').at(-1)).toMatch(/holds csv files \(.*\.csv\): a lake is written in one format; dump it with --format csv, or into another folder$/);
    expect(await lakeCounts(out, 'csv')).toEqual(expected);
  });

  it.each([
    [['--last', '7x'], /invalid --last '7x'/],
    [['--from', '2026-03-01'], /--from 2026-03-01 needs --to/],
    [['--format', 'orc'], /format/],
  ])('refuses %j with exit 2, naming the bad value', async (extra, message) => {
    const result = await h.run(['dump', '--out', join(h.dir, 'bad'), ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(asText(result.stderr)).toMatch(message);
  });

  it('a dump killed between setting a partition aside and swapping its new copy in loses nothing: the next dump puts it back', async () => {
    const out = join(h.dir, 'crash-lake');
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    const whole = await lakeCounts(out);
    // A real process, killed (SIGKILL) at the rename that would put a new partition in place
    // of one just set aside.
    const preload = join(h.dir, 'kill-at-swap.cjs');
    writeFileSync(preload, `const fs = require('node:fs');
const { syncBuiltinESMExports } = require('node:module');
const rename = fs.renameSync;
let aside = 0;
fs.renameSync = (from, to) => {
  if (String(to).includes('/.aside/')) aside++;
  else if (aside >= 2 && String(from).includes('.docpipe-staging-')) process.kill(process.pid, 'SIGKILL');
  return rename(from, to);
};
syncBuiltinESMExports();
`);
    const killed = spawnSync(process.execPath, ['-r', preload, 'bin/docpipe.js', 'dump', '--out', out, '--db', h.db], { encoding: 'utf8' });
    expect(killed.signal).toBe('SIGKILL');
    expect(await lakeCounts(out)).not.toEqual(whole); // a partition is missing from the lake
    // A dump of another project's rows only: it does not rewrite the missing partition, but
    // puts it back from where the killed dump set it aside, and leaves no staging behind.
    expect((await h.run(['dump', '--out', out, '--project', OTHER])).code).toBe(0);
    expect(await lakeCounts(out)).toEqual(whole);
    expect(readdirSync(out).filter((name) => name.startsWith('.docpipe-staging-'))).toEqual([]);
    expect(existsSync(join(out, DUMP_LOCK))).toBe(false); // the killed dump's lock was taken over, then let go
  });

  it('one dump at a time per folder: a live dump\'s lock stops another with exit 75, naming it; a dead one\'s is taken over', async () => {
    const out = join(h.dir, 'locked-lake');
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    const whole = await lakeCounts(out);
    const lock = join(out, DUMP_LOCK);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await once(child, 'spawn');
      const pid = child.pid!;
      const me = thisProcess();
      const record = (owner: object): string => JSON.stringify({ owner, since: '2026-03-10T02:00:00.000Z' });
      writeFileSync(lock, record({ pid, host: me.host, start: processStart(pid) }));
      const busy = await h.run(['dump', '--out', out]);
      expect(busy.code).toBe(75);
      expect(busy.stderr.trim().split('\n')).toHaveLength(1);
      expect(asText(busy.stderr)).toContain(`another docpipe dump (pid ${pid} on ${me.host}`);
      expect(readdirSync(out).filter((name) => name.startsWith('.docpipe-staging-'))).toEqual([]);
      expect(existsSync(lock)).toBe(true); // still the other dump's
      // A lock of another host is held while it is touched, and stale after 5 minutes.
      writeFileSync(lock, record({ pid: 1, host: 'another-host', start: '1.00000000' }));
      expect((await h.run(['dump', '--out', out])).code).toBe(75);
      const old = new Date(Date.now() - 6 * 60_000);
      utimesSync(lock, old, old);
      expect((await h.run(['dump', '--out', out])).code).toBe(0);
      expect(existsSync(lock)).toBe(false);
      // The process gone: its lock is taken over.
      writeFileSync(lock, record({ pid, host: me.host, start: processStart(pid) }));
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    expect(existsSync(lock)).toBe(false);
    expect(await lakeCounts(out)).toEqual(whole);
  });

  it('a ranged dump rewrites the job ledger whole: a job whose date moved to another month is neither lost nor doubled', async () => {
    const out = join(h.dir, 'jobs-lake');
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    // A prompt queued in January and submitted now is filed under its creation: it moves month.
    const moved = async (created: string): Promise<void> =>
      Database.with(h.db, {}, (db) => db.run(`UPDATE agent_jobs SET created_at = '${created}'::TIMESTAMPTZ WHERE prompt_key = (SELECT min(prompt_key) FROM agent_jobs)`));
    await moved('2026-01-15T10:00:00Z');
    try {
      expect((await h.run(['dump', '--out', out])).code).toBe(0);
      await moved('2026-03-05T10:00:00Z');
      expect((await h.run(['dump', '--out', out, '--from', '2026-03-01', '--to', '2026-03-11'])).code).toBe(0);
      expect((await lakeCounts(out)).agent_jobs).toEqual((await dbCounts()).agent_jobs);
    } finally {
      await moved('2026-03-05T10:00:00Z');
    }
  });

  it('refuses an --out that cannot be written with exit 2, naming it: dump to a file, report to a folder', async () => {
    const file = join(h.dir, 'not-a-folder.txt');
    writeFileSync(file, 'x');
    const cases: [string[], string][] = [
      [['dump', '--out', file], `docpipe: invalid --out '${file}': it is a file; expected a folder`],
      [['dump', '--out', join(file, 'lake')], `docpipe: invalid --out '${join(file, 'lake')}': ${file} is a file; expected a folder`],
      [['report', '--out', h.dir], `docpipe: invalid --out '${h.dir}': it is a folder; expected a file name`],
      // A folder not made yet, named as one: not a file of that name.
      [['report', '--out', join(h.dir, 'reports/')], `docpipe: invalid --out '${join(h.dir, 'reports/')}': it names a folder; expected a file name`],
      [['report', '--out', join(file, 'r.html')], `docpipe: invalid --out '${join(file, 'r.html')}': ${file} is a file; expected a file name`],
    ];
    for (const [args, line] of cases) {
      const result = await h.run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(asText(result.stderr).trim()).toBe(line);
    }
  });

  it("report never replaces the database, its spool, or a file that is not an HTML page (exit 2, the file kept)", async () => {
    const before = readFileSync(h.db);
    const prompts = join(h.dir, 'prompts.txt');
    writeFileSync(prompts, 'Fix the intro\n');
    mkdirSync(`${h.db}.spool`, { recursive: true });
    const cases: [string, string][] = [
      [h.db, `it is the database (--db ${h.db})`],
      [`${h.db}.wal`, `it is the database (--db ${h.db})`],
      [join(`${h.db}.spool`, 'r.html'), `it is in the database's spool (${h.db}.spool)`],
      [prompts, 'it is an existing file that is not an HTML page'],
    ];
    for (const [out, why] of cases) {
      const result = await h.run(['report', '--out', out]);
      expect(result.code, out).toBe(2);
      expect(asText(result.stderr).trim()).toBe(`docpipe: invalid --out '${out}': ${why}; not replaced`);
    }
    expect(readFileSync(h.db).equals(before)).toBe(true);
    expect(readFileSync(prompts, 'utf8')).toBe('Fix the intro\n');
    // A page written before is replaced, as is an empty file.
    const page = join(h.dir, 'again.html');
    expect((await h.run(['report', '--out', page])).code).toBe(0);
    expect((await h.run(['report', '--out', page])).code).toBe(0);
    writeFileSync(join(h.dir, 'empty.html'), '');
    expect((await h.run(['report', '--out', join(h.dir, 'empty.html')])).code).toBe(0);
    // Pages as other tools write them: after a comment or an XML declaration, without a doctype,
    // or any file named .html; and a blank file.
    const pages: [string, string][] = [
      ['commented.page', '<!-- generated -->\n<html><body>old</body></html>'],
      ['xml.page', '<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"></html>'],
      ['head.page', '\uFEFF  <head><title>old</title></head>'],
      ['blank.page', '  \n'],
      ['odd.htm', 'not markup at all'],
    ];
    for (const [name, content] of pages) {
      writeFileSync(join(h.dir, name), content);
      const result = await h.run(['report', '--out', join(h.dir, name)]);
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
    }
  });

  it('a --db under a symbolic link that leads nowhere is exit 2, saying so', async () => {
    symlinkSync(join(h.dir, 'gone'), join(h.dir, 'dangling'));
    const db = join(h.dir, 'dangling', 'x.duckdb');
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02', '--db', db]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr).trim().split('\n').at(-1)).toBe(
      `docpipe: database '${db}' cannot be created: a part of its folder is a symbolic link that leads nowhere (check --db or DOCPIPE_DB)`,
    );
  });

  it.runIf(process.platform === 'linux')('refuses at once (exit 2) an --out or --db whose folder cannot be made (under /proc Node\'s own mkdir -p spins for ever)', async () => {
    const cases: [string[], string][] = [
      [['dump', '--out', '/proc/docpipe-lake'], "docpipe: cannot write --out '/proc/docpipe-lake': its folder cannot be made there (ENOENT)"],
      [['report', '--out', '/proc/docpipe/r.html'], "docpipe: cannot write --out '/proc/docpipe/r.html': its folder cannot be made there (ENOENT)"],
      // A folder that takes no new file: named as given, not as the temporary file beside it.
      [['report', '--out', '/proc/r.html'], "docpipe: cannot write --out '/proc/r.html': a file cannot be made there (ENOENT)"],
      [['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02', '--db', '/proc/docpipe/x.duckdb'],
        "docpipe: database '/proc/docpipe/x.duckdb' cannot be created: its folder cannot be made there (check --db or DOCPIPE_DB)"],
    ];
    // Where this machine refuses a new folder outright (/sys, for root too), the code is said.
    const refusal = ((): string | undefined => {
      try {
        mkdirSync('/sys/docpipe-probe');
        rmSync('/sys/docpipe-probe', { recursive: true, force: true });
        return undefined;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code;
      }
    })();
    if (refusal === 'EPERM' || refusal === 'EACCES' || refusal === 'EROFS') {
      cases.push([['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02', '--db', '/sys/docpipe/x.duckdb'],
        `docpipe: database '/sys/docpipe/x.duckdb' cannot be created: its folder cannot be made there (${refusal}) (check --db or DOCPIPE_DB)`]);
      // A folder that exists but takes no file: DuckDB's own refusal, as the path's fault (exit 2, not 1).
      cases.push([['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02', '--db', '/sys/x.duckdb'],
        "docpipe: database '/sys/x.duckdb' cannot be opened there: permission denied (check --db or DOCPIPE_DB)"]);
    }
    for (const [args, line] of cases) {
      const result = await h.run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(asText(result.stderr).trim().split('\n').at(-1)).toBe(line);
    }
  });

  it('report --out: a symbolic link is written through (it stays a link); a pipe is refused, not replaced', async () => {
    mkdirSync(join(h.dir, 'www'), { recursive: true });
    const target = join(h.dir, 'www', 'real.html');
    writeFileSync(target, '<!doctype html><p>an older report</p>');
    const link = join(h.dir, 'link.html');
    symlinkSync(join('www', 'real.html'), link);
    const written = await h.run(['report', '--out', link]);
    expect(written.code, written.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toMatch(/^<!doctype html>/);
    if (spawnSync('mkfifo', [join(h.dir, 'fifo.html')]).status === 0) {
      const piped = await h.run(['report', '--out', join(h.dir, 'fifo.html')]);
      expect(piped.code).toBe(2);
      expect(asText(piped.stderr).trim()).toBe(`docpipe: invalid --out '${join(h.dir, 'fifo.html')}': it is not a regular file; expected a file name`);
      expect(lstatSync(join(h.dir, 'fifo.html')).isFIFO()).toBe(true);
    }
  });

  it('report --out: a symbolic link whose target is not there yet gets its target made, and stays a link; a loop of links is refused', async () => {
    mkdirSync(join(h.dir, 'site'), { recursive: true });
    const dangling = join(h.dir, 'latest.html');
    symlinkSync(join('site', 'first.html'), dangling);
    const written = await h.run(['report', '--out', dangling]);
    expect(written.code, written.stderr).toBe(0);
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(h.dir, 'site', 'first.html'), 'utf8')).toMatch(/^<!doctype html>/);
    symlinkSync('loop-b.html', join(h.dir, 'loop-a.html'));
    symlinkSync('loop-a.html', join(h.dir, 'loop-b.html'));
    const loop = await h.run(['report', '--out', join(h.dir, 'loop-a.html')]);
    expect(loop.code).toBe(2);
    expect(asText(loop.stderr).trim()).toBe(`docpipe: invalid --out '${join(h.dir, 'loop-a.html')}': its symbolic links go round in a loop; expected a file name`);
    // A relative target is read from the link's own folder, reached here through a linked folder.
    mkdirSync(join(h.dir, 'y', 'real'), { recursive: true });
    symlinkSync(join('..', 'y', 'real'), join(h.dir, 'site', 'linked'));
    symlinkSync(join('..', 'made.html'), join(h.dir, 'y', 'real', 'out.html'));
    expect((await h.run(['report', '--out', join(h.dir, 'site', 'linked', 'out.html')])).code).toBe(0);
    expect(readFileSync(join(h.dir, 'y', 'made.html'), 'utf8')).toMatch(/^<!doctype html>/);
    // A folder part that is a link leading nowhere: a usage error before any work, not a raw mkdir error.
    symlinkSync('missing', join(h.dir, 'gone'));
    const gone = await h.run(['report', '--out', join(h.dir, 'gone', 'r.html')]);
    expect(gone.code).toBe(2);
    expect(asText(gone.stderr).trim()).toBe(`docpipe: invalid --out '${join(h.dir, 'gone', 'r.html')}': ${join(h.dir, 'gone')} is a symbolic link that leads nowhere; expected a file name`);
  });

  it('a ranged dump also rewrites the months where windows that overlap its range begin (a window fetched since, begun in the month before)', async () => {
    const out = join(h.dir, 'overlap');
    expect((await h.run(['dump', '--out', out])).code).toBe(0);
    // Fetched after that dump: a window that began in February and ends in the range below.
    const late = await h.run(['export', 'visitors', '--project', OTHER, '--from', '2026-02-25', '--to', '2026-03-05', '--window', 'range']);
    expect(late.code, late.stderr).toBe(0);
    // Today is 2026-03-10: the last 7 days are in March, but the new window is filed under February.
    const last = await h.run(['dump', '--out', out, '--last', '7d']);
    expect(last.code, last.stderr).toBe(0);
    expect(await lakeCounts(out)).toEqual(await dbCounts());
    // The summary says which months it rewrote.
    const tables = (summaryOf(last) as { tables: { table: string; monthsFrom?: string }[] }).tables;
    expect(tables.find((t) => t.table === 'page_visitors')?.monthsFrom).toBe('2026-02-01');
    const text = await h.run(['dump', '--out', out, '--last', '7d', '--log-format', 'text']);
    expect(text.stdout).toContain('(months overlapping 2026-03-03 .. 2026-03-10, --last 7d, and from 2026-02-01 where windows overlapping it began)');
  });
});
