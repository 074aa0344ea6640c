/**
 * A spool docpipe 0.2.0 left (a folder per walk: walk.json, owner, pages.jsonl, done.json)
 * keeps its promise in this release: its completed walk loads without a request, its cut-off
 * walk resumes at its next offset, and read-only commands see it as it is. The fixture was
 * written by 0.2.0's own code (test/fixtures/spool-0.2.0/README.md); real sandbox, real DuckDB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { surveySpool } from '../../src/load/doctor-io.js';
import { Spool, spoolDirFor } from '../../src/spool/spool.js';
import { queryDb, startHarness, summaryOf, type Harness } from './harness.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/spool-0.2.0/test.duckdb.spool', import.meta.url));
const WALKS = ['2026-03-02_2026-03-03', '2026-03-03_2026-03-04'];

describe('a spool left by docpipe 0.2.0', () => {
  let h: Harness;
  let spoolDir: string;
  const projectDir = (): string => join(spoolDir, 'walks', 'visitors', 'docs');

  beforeEach(async () => {
    h = await startHarness('2026-03-10T06:00:00Z', { site: { paths: 300 } });
    spoolDir = spoolDirFor(h.db);
    cpSync(FIXTURE, spoolDir, { recursive: true });
    // The process that left it is gone.
    for (const name of WALKS) writeFileSync(join(projectDir(), name, 'owner'), JSON.stringify({ pid: 999_999, host: hostname() }));
  });
  afterEach(async () => {
    await h.close();
  });

  it('is read as it is by status and doctor (nothing converted by a read)', () => {
    const { walks } = surveySpool(new Spool(spoolDir));
    const byStart = Object.fromEntries(walks.map((w) => [w.window.start, { pages: w.pages, completed: w.completed?.rows ?? null, live: w.ownerLive }]));
    expect(byStart).toEqual({
      '2026-03-02': { pages: 1, completed: null, live: false },
      '2026-03-03': { pages: 2, completed: 300, live: false },
    });
    expect(readdirSync(projectDir()).sort()).toEqual(WALKS);
  });

  it('export loads its completed walk without a request and resumes the other at its next offset', async () => {
    const run = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-04']);
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toMatchObject({ windowsLoaded: 3, windowsFromSpool: 1, requests: 3 });
    const offsets = (day: string): string[] =>
      h.sandbox.requests.filter((r) => r.path.endsWith('/visitors') && r.query.dateFrom === day).map((r) => r.query.offset ?? '0');
    expect(offsets('2026-03-03')).toEqual([]);
    expect(offsets('2026-03-02')).toEqual(['250']);
    expect(offsets('2026-03-01')).toEqual(['0', '250']);
    // Nothing is left of it, in either format.
    expect(new Spool(spoolDir).walks()).toEqual([]);
    for (const name of WALKS) expect(existsSync(join(projectDir(), name))).toBe(false);

    // The same rows as an export that never met the old spool.
    const fresh = { db: join(h.dir, 'fresh.duckdb') };
    const clean = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-04', '--db', fresh.db]);
    expect(clean.code, clean.stderr).toBe(0);
    const rows = `SELECT strftime(window_start, '%Y-%m-%d') AS day, count(*)::INTEGER AS n, sum(total)::INTEGER AS total, count(flags)::INTEGER AS flagged
                    FROM page_visitors GROUP BY ALL ORDER BY day`;
    const loaded = await queryDb(h, rows);
    expect(loaded).toHaveLength(3);
    expect(loaded).toEqual(await queryDb(fresh, rows));
  });

  it.runIf(process.platform === 'linux')('an owner whose pid a process started after the walk has now does not hold it: it loads and resumes as above; a live owner keeps it', async () => {
    const idle = (): ChildProcess => spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const later = idle();
    try {
      // The walks were claimed an hour before that process started.
      for (const name of WALKS) {
        const owner = join(projectDir(), name, 'owner');
        writeFileSync(owner, JSON.stringify({ pid: later.pid, host: hostname() }));
        const hourAgo = new Date(Date.now() - 3_600_000);
        utimesSync(owner, hourAgo, hourAgo);
      }
      expect(surveySpool(new Spool(spoolDir)).walks.map((w) => w.ownerLive)).toEqual([false, false]);
      const run = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-04']);
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run), run.stderr).toMatchObject({ windowsLoaded: 3, windowsFromSpool: 1, requests: 3 });
      expect(new Spool(spoolDir).walks()).toEqual([]);
    } finally {
      later.kill('SIGKILL');
    }
  });

  it('a walk whose 0.2.0 owner is alive is left to it: skipped as busy, not walked again beside it', async () => {
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Claimed just now, by a process already running.
      for (const name of WALKS) writeFileSync(join(projectDir(), name, 'owner'), JSON.stringify({ pid: live.pid, host: hostname() }));
      const run = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-04']);
      expect(run.code, run.stderr).toBe(0);
      expect(summaryOf(run)).toMatchObject({ windowsLoaded: 1, windowsSkipped: 2, requests: 2 });
      const days = h.sandbox.requests.filter((r) => r.path.endsWith('/visitors')).map((r) => r.query.dateFrom);
      expect(new Set(days)).toEqual(new Set(['2026-03-01']));
      for (const name of WALKS) expect(existsSync(join(projectDir(), name))).toBe(true);
    } finally {
      live.kill('SIGKILL');
    }
  });
});
