/**
 * Schema migrations (DESIGN rule 10): databases written by 0.1.0 and by 0.2.0 open in this
 * release with every row kept, released migrations never change, the upgrade is one
 * transaction, a newer schema is refused, a current one is left alone, and changed views are
 * re-created. Real DuckDB files in a temp dir, no mocks.
 *
 * Plain DuckDB access (to look at or tamper with a file behind docpipe's back) goes through
 * `DuckDBInstance.fromCache`, the same instance cache docpipe uses: a docpipe handle releases
 * the file asynchronously after `close()`, and the cache guarantees that this process never
 * holds two instances of one file even if that release is still under way.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../src/core/errors.js';
import { compareVersions, packageVersion } from '../../src/core/version.js';
import { Database, upgradeIfOlder, type Row } from '../../src/load/database.js';
import { currentSchemaVersion, listMigrations, parseMigrationList, splitStatements, tablesCreated, viewOfStatement } from '../../src/load/migrations.js';
import { startHarness, summaryOf, type Harness, asText } from '../cli/harness.js';

const FIXTURE = new URL('../fixtures/db-0.1.0/docpipe.duckdb.gz', import.meta.url);
const FIXTURE_0_2_0 = new URL('../fixtures/db-0.2.0/docpipe.duckdb.gz', import.meta.url);
const VIEWS_SQL = new URL('../../sql/views.sql', import.meta.url);

/** The prompts of the fixture's batch (test/fixtures/db-0.1.0/README.md). */
const FIXTURE_PROMPTS = [
  'Add a troubleshooting section to /quickstart [pr]',
  'Confirm /installation needs no change [nopr]',
  'Rewrite the migration guide [fail]',
];
const FIXTURE_RUNS = ['20260310T060000Z-6819afa9', '20260310T060000Z-19454fb2', '20260310T060000Z-1c89aa5f'];

/**
 * Writes a copy of the 0.1.0 fixture database to `path`. The fixture has no flagged row, so
 * one page row of each metric is flagged (as 0.1.0 flagged rows) to prove `flags` survives too.
 */
async function copyFixture(path: string): Promise<string> {
  unzipFixture(FIXTURE, path);
  await plain(path, async (c) => {
    for (const table of ['page_visitors', 'page_views']) {
      await c.run(`UPDATE ${table} SET flags = 'total_out_of_bounds'
        WHERE window_start = (SELECT min(window_start) FROM ${table})
          AND path = (SELECT min(path) FROM ${table} WHERE window_start = (SELECT min(window_start) FROM ${table}))`);
    }
  });
  return path;
}

/** Writes the database a fixture's `docpipe.duckdb.gz` holds to `path`. */
function unzipFixture(fixture: URL, path: string): string {
  writeFileSync(path, gunzipSync(readFileSync(fixture)));
  return path;
}

/** The storage format of a file as DuckDB reports it: its storage version tag and block size. */
async function storageOf(path: string): Promise<{ version: string; blockSize: number }> {
  return plain(path, async (c) => {
    const tags = (await rowsOf(c, `SELECT tags FROM duckdb_databases() WHERE NOT internal`))[0]?.tags as { key: string; value: string }[] | undefined;
    const size = await rowsOf(c, `SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()`);
    return { version: tags?.find((t) => t.key === 'storage_version')?.value ?? 'none', blockSize: Number(size[0]?.block_size) };
  });
}

/** Runs `work` on a plain DuckDB connection to `path` (no docpipe, no migration), then closes it. */
async function plain<T>(path: string, work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.fromCache(path);
  const connection = await instance.connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function rowsOf(c: DuckDBConnection, sql: string): Promise<Row[]> {
  return (await c.runAndReadAll(sql)).getRowObjectsJS() as Row[];
}

/** Runs queries through docpipe's own handle (a read-write open: migrates if needed). */
async function withDb<T>(path: string, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await Database.open(path);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

const PRIMARY_KEYS = `SELECT table_name FROM duckdb_constraints()
  WHERE schema_name = 'main' AND constraint_type = 'PRIMARY KEY' ORDER BY table_name`;
const KEY_DEFINITIONS = `SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints()
  WHERE schema_name = 'main' ORDER BY ALL`;
const TABLES = `SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_name`;
const VIEWS = `SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY view_name`;
/** The macros of sql/views.sql (top_pages_within, top_pages_shown, ...): views.sql makes them, no migration. */
const MACROS = `SELECT DISTINCT function_name FROM duckdb_functions() WHERE database_name = current_database() AND schema_name = 'main'
  AND function_type IN ('macro', 'table_macro') ORDER BY function_name`;
/** Every table's and view's columns with their types, in order: the schema as a reader sees it. */
const COLUMNS = `SELECT table_name, column_index, column_name, data_type, is_nullable FROM duckdb_columns()
  WHERE schema_name = 'main' AND NOT internal ORDER BY table_name, column_index`;

const names = (rows: Row[], key: string): string[] => rows.map((r) => String(r[key]));

/** The rows docpipe 0.1.0 wrote, in a stable order, with only the columns 0.1.0 had. */
const SNAPSHOTS = {
  page_visitors: 'SELECT * FROM page_visitors ORDER BY ALL',
  page_views: 'SELECT * FROM page_views ORDER BY ALL',
  visitor_totals: 'SELECT * FROM visitor_totals ORDER BY ALL',
  view_totals: 'SELECT * FROM view_totals ORDER BY ALL',
  loaded_windows: 'SELECT * FROM loaded_windows ORDER BY metric, project_id, window_start, window_end',
  agent_jobs: `SELECT project_id, prompt_key, prompt, job_id, status, pr_link, error, submitted_at, finished_at
    FROM agent_jobs ORDER BY prompt_key`,
  request_log: `SELECT started_at, scope, method, path, status, duration_ms, run_id FROM request_log
    WHERE run_id IN ('${FIXTURE_RUNS.join("', '")}') ORDER BY ALL`,
  runs: `SELECT run_id, command, started_at, finished_at, status, exit_code, summary FROM runs
    WHERE run_id IN ('${FIXTURE_RUNS.join("', '")}') ORDER BY run_id`,
} as const;
type Snapshot = Record<keyof typeof SNAPSHOTS, Row[]>;

async function snapshot(query: (sql: string) => Promise<Row[]>): Promise<Snapshot> {
  const out: Partial<Snapshot> = {};
  for (const [table, sql] of Object.entries(SNAPSHOTS)) out[table as keyof Snapshot] = await query(sql);
  return out as Snapshot;
}

/**
 * Submits the fixture's prompts again: the ledger knows every one, so no job is created, and
 * (with the runs before it) nothing at all was asked of the API.
 */
async function expectPromptsNotResubmitted(h: Harness, db: string): Promise<void> {
  const prompts = join(h.dir, 'prompts.txt');
  writeFileSync(prompts, `${FIXTURE_PROMPTS.join('\n')}\n`);
  const submitted = await h.run(['jobs', 'submit', prompts, '--project', 'docs', '--poll-interval', '0.5', '--db', db]);
  expect(submitted.code, submitted.stderr).toBe(0);
  expect(h.sandbox.jobs()).toEqual([]);
  expect(h.sandbox.requests).toEqual([]);
}

describe('a database written by docpipe 0.1.0', () => {
  let h: Harness;
  let db: string;
  let before: Snapshot;
  beforeEach(async () => {
    // The fixture's windows were fetched on 2026-03-10; ten days later every one is settled.
    h = await startHarness('2026-03-20T06:00:00Z', { site: { paths: 300 }, jobs: { pollsToFinish: 1 } });
    db = await copyFixture(join(h.dir, 'docpipe-0.1.0.duckdb'));
    before = await plain(db, (c) => snapshot((sql) => rowsOf(c, sql)));
  });
  afterEach(async () => {
    await h.close();
  });

  it('is what the fixture README says it is (version 1: no schema_version, page tables keyed)', async () => {
    expect(before.page_visitors).toHaveLength(2090);
    expect(before.visitor_totals).toHaveLength(7);
    expect(before.view_totals).toHaveLength(2);
    expect(before.loaded_windows).toHaveLength(9);
    expect(before.agent_jobs.map((j) => [j.prompt, j.status])).toEqual(
      expect.arrayContaining([
        [FIXTURE_PROMPTS[0], 'completed'],
        [FIXTURE_PROMPTS[1], 'completed'],
        [FIXTURE_PROMPTS[2], 'failed'],
      ]),
    );
    expect(before.request_log).toHaveLength(24);
    expect(before.runs).toHaveLength(3);
    await plain(db, async (c) => {
      expect(names(await rowsOf(c, TABLES), 'table_name')).not.toContain('schema_version');
      expect(names(await rowsOf(c, PRIMARY_KEYS), 'table_name')).toEqual(expect.arrayContaining(['page_visitors', 'page_views']));
    });
  });

  it('jobs list brings the ledger up to this release first, then lists it', async () => {
    const listed = await h.run(['jobs', 'list', '--db', db, '--format', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { prompt: string; messages: number; flags: unknown });
    expect(rows.map((r) => r.prompt).sort()).toEqual([...FIXTURE_PROMPTS].sort());
    expect(rows.map((r) => [r.messages, r.flags])).toEqual([[0, null], [0, null], [0, null]]);
    expect(await plain(db, (c) => rowsOf(c, `SELECT max(version) AS v FROM schema_version`))).toEqual([{ v: currentSchemaVersion() }]);
  });

  it('status, doctor and a dry run bring it up to this release first, then read it (each on a copy no writer has opened)', async () => {
    const prompts = join(h.dir, 'prompts.txt');
    writeFileSync(prompts, `${FIXTURE_PROMPTS[0]}\nA new prompt\n`);
    const commands: [string, string[]][] = [
      ['status', ['status', '--format', 'json']],
      ['doctor', ['doctor']],
      ['dry run', ['jobs', 'submit', prompts, '--project', 'docs', '--dry-run']],
    ];
    for (const [name, args] of commands) {
      const copy = await copyFixture(join(h.dir, `docpipe-0.1.0-${name.replace(' ', '-')}.duckdb`));
      const result = await h.run([...args, '--db', copy]);
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      expect(await plain(copy, (c) => rowsOf(c, `SELECT max(version) AS v FROM schema_version`))).toEqual([{ v: currentSchemaVersion() }]);
      if (name === 'dry run') expect(result.stdout).toMatch(/1 would be submitted/);
    }
  });

  it('keeps the storage format it was written in (a file is never rewritten to upgrade)', async () => {
    const written = await storageOf(db);
    // Upgraded to the current schema by a read-write open.
    await Database.with(db, {}, () => Promise.resolve());
    expect(await storageOf(db)).toEqual(written);
    expect(written.version).not.toBe('v1.5.0+');
  });

  it('upgrades on the first CLI run, re-fetches no settled window, resubmits no prompt, and keeps every row', async () => {
    const exported = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08', '--db', db]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(summaryOf(exported)).toMatchObject({ windowsPlanned: 7, windowsSkipped: 7, windowsLoaded: 0, windowsFailed: 0, requests: 0 });
    expect(h.requests('/visitors')).toBe(0);

    await expectPromptsNotResubmitted(h, db);

    await withDb(db, async (d) => {
      // Every row 0.1.0 wrote is still there, unchanged (skipped windows keep their fetched_at).
      expect(await snapshot((sql) => d.all(sql))).toEqual(before);
      const [counts] = await d.all(
        `SELECT (SELECT count(*) FROM page_visitors) AS page_visitors, (SELECT count(*) FROM page_views) AS page_views,
                (SELECT count(*) FROM agent_jobs) AS agent_jobs, (SELECT count(*) FROM request_log) AS request_log,
                (SELECT count(*) FROM runs) AS runs`,
      );
      expect(counts).toMatchObject({ page_visitors: 2090n, page_views: 600n, agent_jobs: 3n });
      expect(counts!.request_log).toBeGreaterThanOrEqual(24n);
      expect(counts!.runs).toBeGreaterThanOrEqual(3n);
      const jobs = await d.all<{ prompt: string; status: string }>('SELECT prompt, status FROM agent_jobs ORDER BY prompt');
      expect(jobs).toEqual([
        { prompt: FIXTURE_PROMPTS[0], status: 'completed' },
        { prompt: FIXTURE_PROMPTS[1], status: 'completed' },
        { prompt: FIXTURE_PROMPTS[2], status: 'failed' },
      ]);

      // Recorded as version 1 (what 0.1.0 was), then migrated to this release's version.
      const versions = await d.all<{ version: number; name: string }>('SELECT version, name FROM schema_version ORDER BY version');
      expect(versions.map((v) => v.version)).toEqual(listMigrations().map((m) => m.version));
      expect(versions).toEqual(listMigrations().map(({ version, name }) => ({ version, name })));
      expect(versions.slice(0, 2)).toEqual([
        { version: 1, name: 'release-0.1.0' },
        { version: 2, name: 'storage-engine' },
      ]);

      // 0002: the page tables lost their primary key; the others kept theirs.
      const keyed = names(await d.all(PRIMARY_KEYS), 'table_name');
      expect(keyed).not.toContain('page_visitors');
      expect(keyed).not.toContain('page_views');
      expect(keyed).toEqual(expect.arrayContaining(['visitor_totals', 'view_totals', 'agent_jobs', 'loaded_windows', 'runs']));
      // ... and the columns and table it added.
      const columns = await d.all<{ table_name: string; column_name: string }>(COLUMNS);
      const has = (table: string, column: string) => columns.some((c) => c.table_name === table && c.column_name === column);
      expect([has('runs', 'pid'), has('runs', 'host'), has('request_log', 'request_id'), has('docpipe_meta', 'key')]).toEqual([
        true,
        true,
        true,
        true,
      ]);
      // 0003: jobs carry flags; the jobs 0.1.0 wrote have none.
      expect(has('agent_jobs', 'flags')).toBe(true);
      expect(await d.all('SELECT DISTINCT flags FROM agent_jobs')).toEqual([{ flags: null }]);

      // The views work over the migrated tables.
      const [daily] = await d.all<{ n: bigint }>('SELECT count(*) AS n FROM daily_page_visitors');
      expect(daily!.n).toBe(2090n);
      const [site] = await d.all<{ n: bigint }>('SELECT count(*) AS n FROM daily_site');
      expect(site!.n).toBe(7n);
      const flagged = await d.all('SELECT metric, flags FROM flagged_rows ORDER BY metric');
      expect(flagged).toEqual([
        { metric: 'views', flags: 'total_out_of_bounds' },
        { metric: 'visitors', flags: 'total_out_of_bounds' },
      ]);
    });
  });

  it('0003: takes the other endpoints after the upgrade, beside every row 0.1.0 wrote', async () => {
    for (const metric of ['searches', 'feedback', 'assistant', 'feedback-by-page', 'caller-stats']) {
      const result = await h.run(['export', metric, '--project', 'docs', '--from', '2026-03-02', '--to', '2026-03-03', '--db', db]);
      expect(result.code, result.stderr).toBe(0);
    }
    await withDb(db, async (d) => {
      // Every row 0.1.0 wrote is unchanged; loaded_windows gained the new windows beside its own.
      const { loaded_windows: windows, ...rest } = await snapshot((sql) => d.all(sql));
      const { loaded_windows: windowsBefore, ...restBefore } = before;
      expect(rest).toEqual(restBefore);
      expect(windows).toEqual(expect.arrayContaining(windowsBefore));
      expect(windows.length).toBe(windowsBefore.length + 5);
      const [counts] = await d.all<Record<string, bigint>>(
        `SELECT (SELECT count(*) FROM searches) AS searches, (SELECT count(*) FROM search_totals) AS search_totals,
                (SELECT count(*) FROM feedback) AS feedback, (SELECT count(*) FROM assistant_conversations) AS conversations,
                (SELECT count(*) FROM feedback_by_page) AS by_page, (SELECT count(*) FROM assistant_caller_stats) AS callers`,
      );
      expect(counts).toMatchObject({ search_totals: 1n, callers: 1n });
      for (const table of ['searches', 'feedback', 'conversations', 'by_page']) expect(counts![table]).toBeGreaterThan(0n);
      const metrics = await d.all<{ metric: string }>(`SELECT DISTINCT metric FROM loaded_windows ORDER BY metric`);
      expect(metrics.map((m) => m.metric)).toEqual(['assistant', 'caller-stats', 'feedback', 'feedback-by-page', 'searches', 'views', 'visitors']);
    });
  });

  it('is refused, unchanged, when a column or an index was added to a page table by hand (the upgrade rebuilds those tables)', async () => {
    await plain(db, (c) => c.run(`ALTER TABLE page_visitors ADD COLUMN note VARCHAR; UPDATE page_visitors SET note = 'mine'; CREATE INDEX my_idx ON page_views (path)`));
    const open = Database.open(db);
    await expect(open).rejects.toBeInstanceOf(DatabaseError);
    await expect(open).rejects.toThrow('would drop what was added to them by hand: column page_visitors.note, index my_idx on page_views;');
    const [kept] = await plain(db, (c) => rowsOf(c, `SELECT count(*) FILTER (WHERE note = 'mine') AS n, (SELECT count(*) FROM duckdb_tables() WHERE table_name = 'schema_version') AS versioned FROM page_visitors`));
    expect(kept).toEqual({ n: 2090n, versioned: 0n });
  });

  it('is refused, unchanged and naming the fix, when a table of the analyst\'s own has a name the upgrade makes a table of', async () => {
    await plain(db, (c) => c.run(`CREATE TABLE feedback (note VARCHAR); INSERT INTO feedback VALUES ('mine')`));
    const open = Database.open(db);
    await expect(open).rejects.toBeInstanceOf(DatabaseError);
    await expect(open).rejects.toThrow(
      'cannot upgrade this database from schema version 1: it has a table feedback of its own, and the upgrade (sql/migrations/0006-all-endpoints.sql) ' +
        'makes a table of that name: rename it with any DuckDB client (ALTER TABLE feedback RENAME TO my_feedback) and run again',
    );
    const [kept] = await plain(db, (c) => rowsOf(c, `SELECT (SELECT note FROM feedback) AS note, (SELECT count(*) FROM duckdb_tables() WHERE table_name = 'schema_version') AS versioned`));
    expect(kept).toEqual({ note: 'mine', versioned: 0n });
    // Renamed as it says, the upgrade goes through and the table is kept.
    await plain(db, (c) => c.run(`ALTER TABLE feedback RENAME TO my_feedback`));
    await withDb(db, () => Promise.resolve());
    expect(await plain(db, (c) => rowsOf(c, `SELECT note FROM my_feedback`))).toEqual([{ note: 'mine' }]);
  });

  it('ends up with exactly the schema a fresh database gets', async () => {
    const fresh = join(h.dir, 'fresh.duckdb');
    const schema = (d: Database) =>
      Promise.all([d.all(TABLES), d.all(VIEWS), d.all(COLUMNS), d.all(KEY_DEFINITIONS), d.all(MACROS)]);
    const upgraded = await withDb(db, schema);
    const created = await withDb(fresh, schema);
    expect(upgraded).toEqual(created);
    expect(names(upgraded[0], 'table_name')).toContain('schema_version');
    expect(names(upgraded[4], 'function_name')).toEqual(expect.arrayContaining(['top_pages_shown', 'top_pages_within']));
  });
});

describe('a database written by docpipe 0.2.0 (schema version 6)', () => {
  let h: Harness;
  let db: string;
  /** The columns each table had in 0.2.0: a later release may add columns, never change these. */
  let columns: Map<string, string[]>;
  let fixtureRuns: string[];
  let before: Map<string, Row[]>;

  /**
   * Every row of every table 0.2.0 had, in its 0.2.0 columns, in a stable order; runs and
   * request_log only for the fixture's own runs (later runs add theirs). The bookkeeping
   * tables (schema_version, docpipe_meta) change with every upgrade and are checked apart.
   */
  async function rowsOf020(query: (sql: string) => Promise<Row[]>): Promise<Map<string, Row[]>> {
    const out = new Map<string, Row[]>();
    const runs = `'${fixtureRuns.join("', '")}'`;
    for (const [table, cols] of columns) {
      if (table === 'schema_version' || table === 'docpipe_meta') continue;
      const where = table === 'runs' || table === 'request_log' ? ` WHERE run_id IN (${runs})` : '';
      out.set(table, await query(`SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${table}"${where} ORDER BY ALL`));
    }
    return out;
  }

  beforeEach(async () => {
    // The fixture's windows were fetched on 2026-03-10; ten days later every one is settled.
    h = await startHarness('2026-03-20T06:00:00Z', { site: { paths: 300 }, jobs: { pollsToFinish: 1 } });
    db = unzipFixture(FIXTURE_0_2_0, join(h.dir, 'docpipe-0.2.0.duckdb'));
    await plain(db, async (c) => {
      const tables = new Set(names(await rowsOf(c, TABLES), 'table_name'));
      columns = new Map();
      for (const r of await rowsOf(c, COLUMNS)) {
        const table = String(r.table_name);
        if (tables.has(table)) columns.set(table, [...(columns.get(table) ?? []), String(r.column_name)]);
      }
      fixtureRuns = names(await rowsOf(c, 'SELECT run_id FROM runs ORDER BY run_id'), 'run_id');
    });
    before = await plain(db, (c) => rowsOf020((sql) => rowsOf(c, sql)));
  });
  afterEach(async () => {
    await h.close();
  });

  it('is what the fixture README says it is', async () => {
    expect(fixtureRuns).toHaveLength(9);
    const count = (table: string): number => before.get(table)?.length ?? -1;
    expect([count('page_visitors'), count('page_views'), count('visitor_totals'), count('view_totals')]).toEqual([2090, 600, 7, 2]);
    expect([count('loaded_windows'), count('agent_jobs'), count('agent_messages'), count('assistant_messages')]).toEqual([18, 3, 1, 34]);
    expect(before.get('runs')!.map((r) => r.status)).toEqual(Array(9).fill('ok'));
    const versions = await plain(db, (c) => rowsOf(c, 'SELECT version, name FROM schema_version ORDER BY version'));
    expect(versions).toEqual(listMigrations().slice(0, 6).map(({ version, name }) => ({ version, name })));
  });

  it('is read by `query` as it is, without a byte of the file changing', async () => {
    const sha = () => createHash('sha256').update(readFileSync(db)).digest('hex');
    const written = sha();
    const read = await h.run(['query', '--db', db, '--format', 'json', 'SELECT count(*) AS n FROM daily_page_visitors']);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout.trim())).toEqual({ n: 2090 });
    // A name only this release's schema has: the error says why, and how to get it.
    const newer = await h.run(['query', '--db', db, "SELECT page_path_of('https://docs.example.com/a')"]);
    expect(newer.code).toBe(2);
    expect(asText(newer.stderr)).toMatch(/^docpipe: query: Catalog Error: .*page_path_of does not exist.* \(this database was written by an older docpipe: this release's views and macros appear once a docpipe command that writes has opened it, which upgrades it\)\n$/);
    expect(sha()).toBe(written);
  });

  it('asks nothing of the API for what it holds, and keeps every row', async () => {
    const runs: [string[], number][] = [
      [['export', 'visitors', '--from', '2026-03-01', '--to', '2026-03-08'], 7],
      // The settled week only: the other ended on 2026-03-09 and was fetched the next day.
      [['export', 'views', '--from', '2026-02-23', '--to', '2026-03-02', '--window', 'week'], 1],
      ...['searches', 'feedback', 'feedback-by-page', 'caller-stats'].map((m): [string[], number] => [['export', m, '--from', '2026-03-02', '--to', '2026-03-04'], 2]),
    ];
    for (const [args, windows] of runs) {
      const result = await h.run([...args, '--project', 'docs', '--db', db]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(summaryOf(result), args.join(' ')).toMatchObject({ windowsPlanned: windows, windowsSkipped: windows, windowsLoaded: 0, requests: 0 });
    }
    await expectPromptsNotResubmitted(h, db);

    const after = await plain(db, (c) => rowsOf020((sql) => rowsOf(c, sql)));
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [table, rows] of before) expect(after.get(table), table).toEqual(rows);
    const doctor = await h.run(['doctor', '--db', db]);
    expect(doctor.code, doctor.stdout).toBe(0);

    // Threads: the ones 0.2.0 fetched are not asked for again. 0.2.0 took a conversation
    // without a threadId field (the sandbox gave 60% one) for one without a thread; the API
    // names a thread by the conversation's id, so those are fetched now, one request each.
    const [unfetched] = await plain(db, (c) =>
      rowsOf(c, `SELECT count(*)::INTEGER AS n FROM assistant_conversations WHERE window_start = '2026-03-02' AND thread_id IS NULL`),
    );
    expect(Number(unfetched!.n)).toBeGreaterThan(0);
    const threads = await h.run(['export', 'assistant', '--from', '2026-03-02', '--to', '2026-03-03', '--threads', '--project', 'docs', '--db', db]);
    expect(threads.code, threads.stderr).toBe(0);
    expect(summaryOf(threads)).toMatchObject({ windowsSkipped: 1, windowsLoaded: 0, requests: Number(unfetched!.n) });
    expect((summaryOf(threads).threads as { threadsLoaded: number }).threadsLoaded).toBe(Number(unfetched!.n));

    // When 0.2.0 fetched each window counts: the week it fetched a day after its end is not
    // settled, and is the only one fetched again.
    const views = await h.run(['export', 'views', '--from', '2026-02-23', '--to', '2026-03-09', '--window', 'week', '--project', 'docs', '--db', db]);
    expect(views.code, views.stderr).toBe(0);
    expect(summaryOf(views)).toMatchObject({ windowsPlanned: 2, windowsSkipped: 1, windowsLoaded: 1, requests: 2 });
    // Written to in the format 0.2.0 created it in, never rewritten in this release's.
    expect(await storageOf(db)).toEqual({ version: 'v1.0.0+', blockSize: 65536 });
  });

  it('ends up with exactly the schema a fresh database gets', async () => {
    const fresh = join(h.dir, 'fresh.duckdb');
    const schema = (d: Database) => Promise.all([d.all(TABLES), d.all(VIEWS), d.all(COLUMNS), d.all(KEY_DEFINITIONS), d.all(MACROS)]);
    const upgraded = await withDb(db, schema);
    expect(upgraded).toEqual(await withDb(fresh, schema));
    expect(names(upgraded[4], 'function_name')).toEqual(expect.arrayContaining(['top_pages_shown', 'top_pages_within']));
    const versions = await plain(db, (c) => rowsOf(c, 'SELECT version FROM schema_version ORDER BY version'));
    expect(versions.map((v) => v.version)).toEqual(listMigrations().map((m) => m.version));
  });

  it('waits (exit 75) to upgrade while a run of the release that wrote it is at work on it, then upgrades', async () => {
    // A 0.2.0 process still at work (a backfill started before the upgrade): its record, with
    // the pid of a live process on this host.
    // (It started before the run's record: a pid reused since does not hold the upgrade back;
    // see the next test.)
    const older = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', 'bin/docpipe.js'], { stdio: 'ignore' });
    try {
      await plain(db, (c) =>
        c.run(`INSERT INTO runs (run_id, command, started_at, status, pid, host) VALUES ('20260320T050000Z-0a0b0c0d', 'sync', now(), 'running', ${older.pid}, '${hostname()}')`),
      );
      const version = async (): Promise<number> => Number((await plain(db, (c) => rowsOf(c, 'SELECT max(version) AS v FROM schema_version')))[0]?.v);
      for (const command of [['status'], ['export', 'views', '--from', '2026-03-02', '--to', '2026-03-09', '--window', 'week', '--project', 'docs']]) {
        const result = await h.run([...command, '--db', db]);
        expect(result.code, command[0]).toBe(75);
        // status fails with the line; an export ends with its summary (stopped: locked), which says it.
        expect(command[0] === 'status' ? result.stderr : result.stdout).toContain(
          'this database is at schema version 6 and an older docpipe is at work on it: sync (run 20260320T050000Z-0a0b0c0d, pid ' +
            `${older.pid}); upgrading it now would stop that run: try again once it has ended`,
        );
        expect(await version()).toBe(6);
      }
      expect(h.sandbox.requests).toHaveLength(0);
      older.kill('SIGKILL');
      await new Promise((resolve) => older.once('exit', resolve));
      const after = await h.run(['status', '--db', db]);
      expect(after.code, after.stderr).toBe(0);
      expect(await version()).toBe(currentSchemaVersion());
    } finally {
      older.kill('SIGKILL');
    }
  });

  it.runIf(process.platform === 'linux')('a record whose pid another program took at once holds the upgrade back (docpipe may run inside any program), and the message says how to let it go ahead', async () => {
    // A 0.2.0 run killed a moment ago; a daemon got its pid at once.
    const daemon = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Run ids are the API caller's to choose in a library: one with a quote is quoted in the SQL named.
      await plain(db, (c) =>
        c.run(`INSERT INTO runs (run_id, command, started_at, status, pid, host) VALUES
                 ('20260320T050000Z-0a0b0c0d', 'sync', now(), 'running', ${daemon.pid}, '${hostname()}'),
                 ('x'' OR ''1''=''1', 'sync', now(), 'running', ${daemon.pid}, '${hostname()}')`),
      );
      const finishedBefore = await plain(db, (c) => rowsOf(c, `SELECT count(*)::INTEGER AS n FROM runs WHERE status <> 'running'`));
      const held = await h.run(['status', '--db', db]);
      expect(held.code).toBe(75);
      const remedy = /\(if pid \d+ is no docpipe now, those runs crashed: marking them so with any DuckDB client, (UPDATE runs .+), lets the upgrade go ahead\)\n$/.exec(asText(held.stderr));
      expect(remedy, held.stderr).not.toBeNull();
      await plain(db, (c) => c.run(remedy![1]!));
      // Only those two: the finished runs keep their status.
      expect(await plain(db, (c) => rowsOf(c, `SELECT count(*)::INTEGER AS n FROM runs WHERE status NOT IN ('running', 'crashed')`))).toEqual(finishedBefore);
      const result = await h.run(['status', '--db', db]);
      expect(result.code, result.stderr).toBe(0);
      expect(Number((await plain(db, (c) => rowsOf(c, 'SELECT max(version) AS v FROM schema_version')))[0]?.v)).toBe(currentSchemaVersion());
    } finally {
      daemon.kill('SIGKILL');
    }
  });

  it.runIf(process.platform === 'linux')('a stale record whose pid a docpipe process started later has now does not hold the upgrade back', async () => {
    // A 0.2.0 run killed an hour ago; its pid now belongs to a docpipe process started since
    // (a cron run of this release, a sandbox): a process cannot be a run older than itself.
    const later = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', 'bin/docpipe.js'], { stdio: 'ignore' });
    try {
      await plain(db, (c) =>
        c.run(`INSERT INTO runs (run_id, command, started_at, status, pid, host) VALUES ('20260320T050000Z-0a0b0c0d', 'sync', now() - INTERVAL 1 HOUR, 'running', ${later.pid}, '${hostname()}')`),
      );
      const result = await h.run(['status', '--db', db]);
      expect(result.code, result.stderr).toBe(0);
      expect(Number((await plain(db, (c) => rowsOf(c, 'SELECT max(version) AS v FROM schema_version')))[0]?.v)).toBe(currentSchemaVersion());
    } finally {
      later.kill('SIGKILL');
    }
  });

  it.runIf(process.platform === 'linux')('a stale record whose pid another program has now does not hold the upgrade back', async () => {
    // A 0.2.0 run cut off by a reboot: its pid (1 here) is alive, but it is not docpipe.
    await plain(db, (c) =>
      c.run(`INSERT INTO runs (run_id, command, started_at, status, pid, host) VALUES ('20260301T050000Z-deadbeef', 'sync', TIMESTAMPTZ '2026-03-01 05:00:00+00', 'running', 1, '${hostname()}')`),
    );
    const result = await h.run(['status', '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    expect(Number((await plain(db, (c) => rowsOf(c, 'SELECT max(version) AS v FROM schema_version')))[0]?.v)).toBe(currentSchemaVersion());
  });
});

describe('an older database where it cannot be written (a read-only mount)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-readonly-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** `docpipe args` with `dir` mounted read-only, in a mount namespace of its own (nothing leaks out). */
  function onReadOnlyMount(args: string[]): { code: number | null; stdout: string; stderr: string } {
    const script = `mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"`;
    const run = spawnSync('unshare', ['--mount', 'sh', '-c', script, dir, process.execPath, 'bin/docpipe.js', ...args], { encoding: 'utf8' });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  }
  const canMount = (): boolean => process.platform === 'linux' && spawnSync('unshare', ['--mount', 'true']).status === 0;

  it('a command that needs it upgraded says so, and query reads it as it is', (context) => {
    if (!canMount()) return context.skip();
    const db = unzipFixture(FIXTURE_0_2_0, join(dir, 'docpipe.duckdb'));
    const status = onReadOnlyMount(['status', '--db', db]);
    expect(status.code).toBe(1);
    expect(asText(status.stderr).split('\n').find((l) => l.startsWith('docpipe:'))).toBe(
      `docpipe: database ${db} was written by an older docpipe and this command needs it upgraded, but ${db} cannot be written here: ` +
        'run any docpipe command that writes on it once where it can be (it upgrades it), or read it as it is with docpipe query',
    );
    const query = onReadOnlyMount(['query', 'SELECT count(*) AS n FROM loaded_windows', '--db', db, '--format', 'csv']);
    expect(query.code, query.stderr).toBe(0);
    expect(query.stdout).toMatch(/^n\n\d+\n$/);
  });
});

describe('the upgrade is one transaction', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-migrate-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  // page_visitors_v2 makes 0002 fail at its first statement; page_views_v2 makes it fail after
  // page_visitors was already copied, dropped and renamed inside the transaction.
  it.each(['page_visitors_v2', 'page_views_v2'])('a migration that fails (on an existing %s) leaves version 1 with all data', async (obstacle) => {
    const db = await copyFixture(join(dir, 'copy.duckdb'));
    const before = await plain(db, (c) => snapshot((sql) => rowsOf(c, sql)));
    await plain(db, (c) => c.run(`CREATE TABLE ${obstacle} (x INTEGER)`));

    const failed = Database.open(db);
    await expect(failed).rejects.toBeInstanceOf(DatabaseError);
    await expect(failed).rejects.toThrow(/0002-storage-engine/);

    await plain(db, async (c) => {
      const tables = names(await rowsOf(c, TABLES), 'table_name');
      expect(tables).not.toContain('schema_version');
      expect(tables).not.toContain('docpipe_meta');
      expect(tables).not.toContain(obstacle === 'page_views_v2' ? 'page_visitors_v2' : 'page_views_v2');
      const keyed = names(await rowsOf(c, PRIMARY_KEYS), 'table_name');
      expect(keyed).toEqual(expect.arrayContaining(['page_visitors', 'page_views']));
      const runColumns = names(await rowsOf(c, `SELECT column_name FROM duckdb_columns() WHERE table_name = 'runs'`), 'column_name');
      expect(runColumns).not.toContain('pid');
      expect(await snapshot((sql) => rowsOf(c, sql))).toEqual(before);
      expect(before.page_visitors).toHaveLength(2090);
      await c.run(`DROP TABLE ${obstacle}`);
    });

    // With the obstacle gone the same file upgrades, so the failure left nothing half-done.
    await withDb(db, async (d) => {
      const versions = await d.all<{ version: number }>('SELECT version FROM schema_version ORDER BY version');
      expect(versions.map((v) => v.version)).toEqual(listMigrations().map((m) => m.version));
      expect(await snapshot((sql) => d.all(sql))).toEqual(before);
      expect(names(await d.all(PRIMARY_KEYS), 'table_name')).not.toContain('page_visitors');
    });
  });
});

describe('schema versions', () => {
  let dir: string;
  let db: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-migrate-'));
    db = join(dir, 'test.duckdb');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('a fresh database gets every migration, and opening it again applies nothing', async () => {
    const n = currentSchemaVersion();
    expect(n).toBeGreaterThanOrEqual(2);
    const read = (d: Database) =>
      Promise.all([
        d.all<{ version: number; name: string; applied_at: Date }>('SELECT version, name, applied_at FROM schema_version ORDER BY version'),
        d.all('SELECT key, value FROM docpipe_meta ORDER BY key'),
      ]);
    const [first, meta] = await withDb(db, read);
    expect(first.map((v) => v.version)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(first.map((v) => v.name)).toEqual(listMigrations().map((m) => m.name));
    expect(names(await withDb(db, (d) => d.all(PRIMARY_KEYS)), 'table_name')).not.toContain('page_visitors');

    await new Promise((resolve) => setTimeout(resolve, 20)); // so a re-applied migration would get a later applied_at
    const [again, metaAgain] = await withDb(db, read);
    expect(again).toEqual(first);
    expect(metaAgain).toEqual(meta);
  });

  it("a new file is written in DuckDB 1.5's storage format with 256 KiB blocks", async () => {
    await withDb(db, () => Promise.resolve());
    expect(await storageOf(db)).toEqual({ version: 'v1.5.0+', blockSize: 262_144 });
  });

  it('a database from a newer docpipe is refused, read-write and read-only, and left as it was', async () => {
    await withDb(db, async () => undefined);
    await plain(db, (c) => c.run(`INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'from-the-future', now())`));

    for (const options of [{}, { readOnly: true }]) {
      const open = Database.open(db, options);
      await expect(open).rejects.toBeInstanceOf(DatabaseError);
      await expect(open).rejects.toThrow(/newer docpipe/);
      await expect(open).rejects.toThrow(/schema version 99\b/);
    }
    const [row] = await plain(db, (c) => rowsOf(c, 'SELECT max(version) AS v, count(*) AS n FROM schema_version'));
    expect(row).toEqual({ v: 99, n: BigInt(currentSchemaVersion() + 1) });
  });

  it('views are re-created when sql/views.sql changed since they were applied', async () => {
    const sha = createHash('sha256').update(readFileSync(VIEWS_SQL, 'utf8')).digest('hex');
    const views = (d: Database) => d.all(VIEWS).then((rows) => names(rows, 'view_name'));
    expect(await withDb(db, views)).toContain('daily_site');
    const recorded = (c: DuckDBConnection) => rowsOf(c, `SELECT value FROM docpipe_meta WHERE key = 'views_sha256'`);
    expect(await plain(db, recorded)).toEqual([{ value: sha }]);

    // Same checksum, but a view dropped by hand: made again at the next open.
    await plain(db, (c) => c.run('DROP VIEW daily_site'));
    expect(await withDb(db, views)).toContain('daily_site');
    // Nor one dropped from main while another schema has a view of that name.
    await plain(db, (c) => c.run(`CREATE SCHEMA analyst; CREATE VIEW analyst.daily_site AS SELECT 1 AS x; DROP VIEW main.daily_site`));
    expect(await withDb(db, views)).toContain('daily_site');
    // A table someone put in a view's place (materialised it) is left alone, and every open still works.
    await plain(db, (c) => c.run(`CREATE TABLE ds AS FROM daily_site; DROP VIEW daily_site; ALTER TABLE ds RENAME TO daily_site`));
    expect(await withDb(db, views)).not.toContain('daily_site');
    await plain(db, (c) => c.run(`DROP TABLE daily_site`));
    expect(await withDb(db, views)).toContain('daily_site');
    // A column added to a page table by hand does not stop the views (they name their columns).
    await plain(db, (c) => c.run('ALTER TABLE page_visitors ADD COLUMN note VARCHAR; DROP VIEW flagged_rows'));
    expect(await withDb(db, views)).toContain('flagged_rows');

    // Changed views (another checksum) with a table in a view's place: the other views are made
    // again, the table and its rows stay. CREATE OR REPLACE VIEW failed on it, and every command with it.
    await plain(db, (c) => c.run(`CREATE TABLE ds AS FROM daily_site; INSERT INTO ds (day) VALUES (DATE '2026-01-01'); DROP VIEW daily_site; ALTER TABLE ds RENAME TO daily_site`));
    await plain(db, (c) => c.run(`UPDATE docpipe_meta SET value = 'stale' WHERE key = 'views_sha256'; DROP VIEW weekly_site`));
    const after = await withDb(db, views);
    expect(after).toContain('weekly_site');
    expect(after).not.toContain('daily_site');
    expect(await plain(db, recorded)).toEqual([{ value: sha }]);
    expect(await plain(db, (c) => rowsOf(c, `SELECT strftime(day, '%Y-%m-%d') AS day FROM daily_site`))).toEqual([{ day: '2026-01-01' }]);
    await plain(db, (c) => c.run(`DROP TABLE daily_site`));

    // Views a newer docpipe made (same schema, its views.sql) stay as they are: this release
    // would undo them at every open, and the newer one redo them at its next.
    expect(await plain(db, (c) => rowsOf(c, `SELECT value FROM docpipe_meta WHERE key = 'views_release'`))).toEqual([{ value: packageVersion() }]);
    await plain(db, (c) => c.run(`UPDATE docpipe_meta SET value = CASE key WHEN 'views_release' THEN '99.0.0' ELSE 'newer' END WHERE key IN ('views_sha256', 'views_release');
                                  CREATE OR REPLACE VIEW daily_site AS SELECT 1 AS from_the_newer_release`));
    await withDb(db, () => Promise.resolve());
    expect(await plain(db, (c) => rowsOf(c, `SELECT * FROM daily_site`))).toEqual([{ from_the_newer_release: 1 }]);
    expect(await plain(db, recorded)).toEqual([{ value: 'newer' }]);
    // Nor does a reader (status, report, dump) take it for an older file's: it needs no write,
    // which would wait for the lock, or fail where the file cannot be written. Held read-only
    // here, a write this process tried would be refused.
    const held = await Database.open(db, { readOnly: true });
    try {
      await upgradeIfOlder(db, {});
    } finally {
      await held.close();
    }
    // Made by an older one: made again, and recorded as this release's.
    await plain(db, (c) => c.run(`UPDATE docpipe_meta SET value = '0.2.0' WHERE key = 'views_release'`));
    await withDb(db, () => Promise.resolve());
    expect(await plain(db, recorded)).toEqual([{ value: sha }]);
    expect(await plain(db, (c) => rowsOf(c, `SELECT count(*) AS n FROM daily_site`))).toEqual([{ n: 0n }]);

    // A different checksum (as after an upgrade that changed views.sql): the views are re-applied,
    // and a macro the older views.sql did not have (top_pages_shown, added beside the same schema) is made.
    await plain(db, (c) => c.run(`UPDATE docpipe_meta SET value = 'stale' WHERE key = 'views_sha256'; DROP MACRO TABLE top_pages_shown`));
    expect(await withDb(db, views)).toContain('daily_site');
    expect(names(await withDb(db, (d) => d.all(MACROS)), 'function_name')).toContain('top_pages_shown');
    expect(await plain(db, recorded)).toEqual([{ value: sha }]);
    const [site] = await withDb(db, (d) => d.all<{ n: bigint }>('SELECT count(*) AS n FROM daily_site'));
    expect(site!.n).toBe(0n);
  });
});

describe('splitting views.sql and reading migrations (pure)', () => {
  it('splitStatements cuts at semicolons outside strings, quoted names and comments', async () => {
    const sql = `CREATE VIEW a AS SELECT 'x;y' AS "c;d"; -- a comment; with a semicolon
COMMENT ON VIEW a IS 'it''s; fine';
/* a block; comment */ SELECT 1;
-- only a comment
`;
    expect(splitStatements(sql).map((st) => st.trim())).toEqual([
      `CREATE VIEW a AS SELECT 'x;y' AS "c;d"`,
      `-- a comment; with a semicolon\nCOMMENT ON VIEW a IS 'it''s; fine'`,
      `/* a block; comment */ SELECT 1`,
    ]);
    // views.sql as it ships: the statements DuckDB's parser finds, each whole.
    const shipped = readFileSync(VIEWS_SQL, 'utf8');
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    try {
      const pieces = splitStatements(shipped);
      expect(pieces.length).toBe((await c.extractStatements(shipped)).count);
      for (const piece of pieces) expect((await c.extractStatements(piece)).count).toBe(1);
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  });

  it('viewOfStatement names the view a statement makes or comments on', () => {
    expect(viewOfStatement('-- note\nCREATE OR REPLACE VIEW Daily_Site AS SELECT 1')).toBe('daily_site');
    expect(viewOfStatement("COMMENT ON VIEW weekly_site IS 'x'")).toBe('weekly_site');
    expect(viewOfStatement("COMMENT ON COLUMN weekly_site.total IS 'x'")).toBe('weekly_site');
    expect(viewOfStatement('CREATE OR REPLACE MACRO window_complete(a) AS a')).toBeUndefined();
  });

  it('tablesCreated lists the tables a migration makes anew, not those it makes if missing', () => {
    expect(tablesCreated('CREATE TABLE searches (a INT);\ncreate table "Feedback" (b INT);\nCREATE TABLE IF NOT EXISTS runs (c INT);')).toEqual(['searches', 'feedback']);
  });
});

describe('compareVersions', () => {
  it('orders versions as semver does: numbers as numbers, a pre-release before its release, text that is no version first', () => {
    const sorted = ['0.10.0', '0.2.0', '0.3.0-dev', '0.3.0', '1.0.0-rc.10', '1.0.0-rc.2', '1.0.0-alpha', '1.0.0', 'garbage', '0.3.0-dev.1'];
    expect([...sorted].sort(compareVersions)).toEqual(['garbage', '0.2.0', '0.3.0-dev', '0.3.0-dev.1', '0.3.0', '0.10.0', '1.0.0-alpha', '1.0.0-rc.2', '1.0.0-rc.10', '1.0.0']);
    expect(compareVersions('0.3.0-dev', '0.3.0-dev')).toBe(0);
    expect(compareVersions('99.0.0', packageVersion())).toBeGreaterThan(0);
  });
});

describe('parseMigrationList', () => {
  it('orders the files and ignores names that are not migrations', () => {
    expect(parseMigrationList(['0002-storage-engine.sql', 'README.md', '0001-release-0.1.0.sql', '0003-x.sql.bak', '3-y.sql'])).toEqual([
      { version: 1, name: 'release-0.1.0', file: '0001-release-0.1.0.sql' },
      { version: 2, name: 'storage-engine', file: '0002-storage-engine.sql' },
    ]);
    expect(parseMigrationList([])).toEqual([]);
  });

  it.each([
    [['0001-a.sql', '0003-c.sql'], /expected version 2, found 0003-c\.sql/],
    [['0002-b.sql'], /expected version 1, found 0002-b\.sql/],
    [['0001-a.sql', '0001-b.sql'], /expected version 2, found 0001-b\.sql/],
  ])('throws on a gap or a duplicate: %j', (files, message) => {
    expect(() => parseMigrationList(files)).toThrow(DatabaseError);
    expect(() => parseMigrationList(files)).toThrow(message);
  });

  it('never changes a released migration (a database that applied it would not get the change: write a new one)', () => {
    // SHA-256 of each migration as releases shipped it (0.1.0's schema as version 1; 0.2.0: 2 to 6).
    const released: Record<string, string> = {
      '0001-release-0.1.0.sql': 'b3d3ef26ca9de57a286c1e5e5e338a0d9c2456adbdb873f6083d20c4d4bf247b',
      '0002-storage-engine.sql': '36f711e1e7bc2c5f88e0537d37d772365958f0014b830eb3a3997dfcb8f99e5e',
      '0003-agent-messages.sql': 'b638ff9e0244537914b3ebfe0f25e17e1396960abe17c216fdf93b153f37d6fa',
      '0004-job-flags.sql': '29bb1757ff562350e59f9542b26b5814e41655a6889497ee5eb4d9dda28b54ba',
      '0005-table-comments.sql': '31834b6054ad39d02139084ffa4ae0dec437238c27a1030105e2a13e20e48875',
      '0006-all-endpoints.sql': 'abaa6e190c87e4bd7dbbb8a29cc89341072f2383204a8d89cf7b7663004197e1',
    };
    const shipped = listMigrations().slice(0, Object.keys(released).length);
    const sha = (file: string) => createHash('sha256').update(readFileSync(new URL(`../../sql/migrations/${file}`, import.meta.url))).digest('hex');
    expect(Object.fromEntries(shipped.map((m) => [m.file, sha(m.file)]))).toEqual(released);
  });

  it('reads the migrations that ship in sql/migrations', () => {
    const shipped = listMigrations();
    expect(shipped.slice(0, 2).map((m) => m.file)).toEqual(['0001-release-0.1.0.sql', '0002-storage-engine.sql']);
    expect(currentSchemaVersion()).toBe(shipped.length);
  });
});
