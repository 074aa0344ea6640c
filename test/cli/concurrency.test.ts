/**
 * The storage engine's promises, end to end: real docpipe processes (dist/ through
 * bin/docpipe.js, on the real clock), a real sandbox over HTTP on 127.0.0.1 in this process,
 * and real DuckDB files shared with other processes.
 *
 * - kill -9 mid-walk costs at most the request in flight (DESIGN rule 9);
 * - readers get into the database between an export's or a batch's writes (rule 10);
 * - a writer that meets a reader waits for it, or after --lock-timeout stops with exit 75
 *   and keeps what it fetched for the next run.
 *
 * Every DuckDB file a test looks at while a docpipe process may run is opened from a child
 * process (DuckDB's file locks are per process); this process opens a file only when no
 * other process uses it, and closes it at once.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEY, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { Database } from '../../src/load/database.js';
import { Store } from '../../src/load/store.js';
import { RequestJournal } from '../../src/spool/request-journal.js';
import { Spool, spoolDirFor } from '../../src/spool/spool.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Whether this machine lets a test start a process in new pid and UTS namespaces (Linux, as root). */
const CONTAINERS =
  process.platform === 'linux' && spawnSync('unshare', ['--pid', '--fork', '--uts', '--mount-proc', 'sh', '-c', 'hostname docpipe-probe']).status === 0;
const BIN = join(ROOT, 'bin', 'docpipe.js');
/** The sandbox's "now": fixed, so its data is the same in every run; every window below is closed. */
const NOW = Date.parse('2026-03-10T06:00:00Z');
/** 2000 pages a project: a day window takes 7 or 8 pages of 250 rows. */
const PATHS = 2000;
/** Slow enough that a walk is still going when the test acts, fast enough for the time limit. */
const SLOW = { kind: 'slow', match: { path: '/visitors' }, delayMs: 40, times: Infinity } as const;

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Date.now() when the process exited. */
  at: number;
}

interface Running {
  child: ChildProcess;
  done: Promise<Exited>;
  /** Resolves with the first stdout line that contains `text`. */
  line(text: string): Promise<string>;
}

/**
 * A reader, like an analyst's DuckDB client: opens the file read-only, counts, closes; again
 * and again, never waiting for a lock. Attempts start on a fixed grid of \`period\` ms rather
 * than back to back: a refused open returns in about half the time of a successful one, so
 * back-to-back attempts would sample the moments the file is held more often than the
 * others. On a grid, the share of successes is the chance that a reader who comes at any
 * moment gets in. Also reports the longest time reads were refused in a row.
 */
const READER = `
import { DuckDBInstance } from '@duckdb/node-api';
const [path, period] = process.argv.slice(1);
let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.resume();
const stats = { ok: 0, locked: 0, other: [], seen: [], okMs: 0, lockedMs: 0, longestRefusedMs: 0 };
let refusedSince;
process.stdout.write('reading\\n');
const start = performance.now();
while (!stop) {
  let instance;
  let connection;
  let ok = false;
  const began = performance.now();
  try {
    instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
    connection = await instance.connect();
    const reader = await connection.runAndReadAll('SELECT count(*)::INTEGER AS n FROM loaded_windows');
    const n = reader.getRowObjectsJS()[0].n;
    if (!stats.seen.includes(n)) stats.seen.push(n);
    ok = true;
  } catch (error) {
    const text = String(error && error.message ? error.message : error);
    if (/Could not set lock/.test(text)) stats.locked++;
    else stats.other.push(text.split('\\n')[0]);
  } finally {
    connection?.closeSync();
    instance?.closeSync();
  }
  if (ok) {
    stats.ok++;
    stats.okMs += performance.now() - began;
    if (refusedSince !== undefined) stats.longestRefusedMs = Math.max(stats.longestRefusedMs, began - refusedSince);
    refusedSince = undefined;
  } else {
    stats.lockedMs += performance.now() - began;
    refusedSince ??= began;
  }
  // The next tick of the grid that is still ahead (a slow attempt skips ticks, whatever its outcome).
  const next = start + Math.ceil((performance.now() - start + 1) / Number(period)) * Number(period);
  await new Promise((resolve) => setTimeout(resolve, next - performance.now()));
}
if (refusedSince !== undefined) stats.longestRefusedMs = Math.max(stats.longestRefusedMs, performance.now() - refusedSince);
process.stdout.write(JSON.stringify(stats) + '\\n');
`;

/**
 * A reader that holds the file (the shared lock DuckDB readers take). It starts, prints
 * 'ready', and takes the file when a line comes on stdin (so that taking it does not wait for
 * a process to start); prints 'held' once it has it, and lets go when stdin ends or, if
 * \`holdMs\` is not 0, after that long; then prints 'released'.
 */
/** Holds the file read-write (as another writer would) until its stdin ends. */
const RW_HOLDER = `
import { DuckDBInstance } from '@duckdb/node-api';
const instance = await DuckDBInstance.create(process.argv[1]);
process.stdout.write('held\\n');
process.stdin.resume();
process.stdin.on('end', () => { instance.closeSync(); process.exit(0); });
`;

const HOLDER = `
import { DuckDBInstance } from '@duckdb/node-api';
const [path, holdMs] = process.argv.slice(1);
const ended = new Promise((resolve) => process.stdin.on('end', resolve));
const go = new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.resume();
process.stdout.write('ready\\n');
await go;
let instance;
for (;;) {
  try {
    instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
    break;
  } catch (error) {
    if (!/Could not set lock/.test(String(error.message))) throw error;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
const connection = await instance.connect();
await connection.runAndReadAll('SELECT count(*) FROM loaded_windows');
process.stdout.write('held\\n');
await Promise.race([ended, ...(Number(holdMs) > 0 ? [new Promise((resolve) => setTimeout(resolve, Number(holdMs)))] : [])]);
connection.closeSync();
instance.closeSync();
process.stdout.write('released\\n');
process.exit(0);
`;

interface ReaderStats {
  ok: number;
  locked: number;
  /** Time spent in successful and refused attempts. */
  okMs: number;
  lockedMs: number;
  /** From the first of a run of refused reads to the next read that got in. */
  longestRefusedMs: number;
  other: string[];
  seen: number[];
}

const describeReads = (s: ReaderStats): string =>
  `reader: ${s.ok} ok (mean ${(s.okMs / Math.max(1, s.ok)).toFixed(1)} ms), ${s.locked} locked (mean ${(s.lockedMs / Math.max(1, s.locked)).toFixed(1)} ms), refused at most ${Math.round(s.longestRefusedMs)} ms in a row`;

/**
 * Readers got in between the writes: no read failed for another reason than the lock, most
 * reads got in, and no read was kept out for long (a writer that held the file across its
 * HTTP waits would keep readers out for the whole run).
 *
 * "Most" is one in two. What this guards against, a writer that keeps the file across its HTTP
 * waits, keeps readers out nearly all the time (and for seconds in a row). How often a reader
 * gets in beside a writer that does not is a matter of speed, which the machine sets: each
 * write attaches the file to the process's one DuckDB instance, checks the schema, commits,
 * checkpoints and detaches. A job batch with 3 jobs polled from every 0.5 s writes 3-4 times a
 * second, each write holding the file 68 ms (median) with the reader and the sandbox beside it
 * on this 2-core box; readers got in on 73-79% of attempts with this test run alone (4 runs),
 * and on 64-68% when the journal was still moved in with read_json (CI's run: 65.9%).
 */
const MOST = 1 / 2;
const LONGEST_REFUSAL_MS = 2_000;

function expectReadersGotIn(stats: ReaderStats): void {
  const attempts = stats.ok + stats.locked;
  expect(stats.other).toEqual([]);
  expect(attempts).toBeGreaterThanOrEqual(20);
  expect(stats.ok / attempts).toBeGreaterThanOrEqual(MOST);
  expect(stats.longestRefusedMs).toBeLessThan(LONGEST_REFUSAL_MS);
}

/** Read-only, from this process: only while no docpipe process runs. */
async function query<T = Record<string, unknown>>(db: string, sql: string): Promise<T[]> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    await connection.run(`SET TimeZone = 'UTC'`);
    return (await connection.runAndReadAll(sql)).getRowObjectsJS() as T[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function summaryOf(result: Exited): Record<string, unknown> {
  const line = result.stdout.trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(line) as Record<string, unknown>;
}

function logLines(result: Exited): Record<string, unknown>[] {
  return result.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** What a window holds, minus run_id and extracted_at: two databases with the same data compare equal. */
async function content(db: string): Promise<unknown> {
  return {
    totals: await query(db, `SELECT project_id, window_start::VARCHAR AS s, window_end::VARCHAR AS e, human, ai, total FROM visitor_totals ORDER BY ALL`),
    pages: await query(db, `SELECT window_start::VARCHAR AS s, count(*)::INTEGER AS n, sum(human)::BIGINT AS h, sum(ai)::BIGINT AS a, sum(total)::BIGINT AS t, md5(string_agg(path || human || ai || total, ',' ORDER BY path)) AS digest FROM page_visitors GROUP BY ALL ORDER BY ALL`),
    windows: await query(db, `SELECT metric, window_start::VARCHAR AS s, row_count::INTEGER AS n FROM loaded_windows ORDER BY ALL`),
  };
}

/**
 * What the API serves for the day windows of [from, to), walked with plain fetch on a second
 * sandbox with the same seed and clock (the same data, and no request on the test's sandbox):
 * the pages a clean export needs, and each day's rows.
 */
async function walkApi(from: string, to: string): Promise<{ pages: number; rows: Record<string, number> }> {
  const scratch = await startSandbox({ now: () => NOW, site: { paths: PATHS } });
  try {
    let pages = 0;
    const rows: Record<string, number> = {};
    for (let day = from; day < to; day = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10)) {
      const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
      const paths = new Set<string>();
      for (let offset = 0; ; ) {
        const res = await fetch(`${scratch.url}/v1/analytics/docs/visitors?dateFrom=${day}&dateTo=${next}&limit=250&offset=${offset}`, {
          headers: { authorization: `Bearer ${SANDBOX_API_KEY}` },
        });
        const body = (await res.json()) as { visitors: { path: string }[]; hasMore: boolean };
        pages++;
        for (const v of body.visitors) paths.add(v.path);
        offset += body.visitors.length;
        if (!body.hasMore) break;
      }
      rows[day] = paths.size;
    }
    return { pages, rows };
  } finally {
    await scratch.close();
  }
}

/** Request keys (`dateFrom@offset`) as a multiset. */
function tally(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
}

const pollUntil = (check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> =>
  new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (check()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`timed out waiting for ${what}`));
      }
    }, 5);
  });

describe('concurrency: real processes, a real sandbox, real DuckDB files', () => {
  let sandbox: Sandbox;
  let dir: string;
  let db: string;
  const children: ChildProcess[] = [];

  async function start(options: SandboxOptions = {}): Promise<void> {
    sandbox = await startSandbox({ now: () => NOW, site: { paths: PATHS }, ...options });
  }

  /** `wrap`: a command that runs node (`unshare ...`), its arguments before node's. */
  function spawnNode(args: string[], input: 'pipe' | 'ignore' = 'ignore', env: NodeJS.ProcessEnv = {}, wrap: string[] = []): Running {
    const [command, ...before] = wrap.length > 0 ? [...wrap, process.execPath] : [process.execPath];
    const child = spawn(command!, [...before, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: [input, 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    const watchers: { text: string; resolve: (line: string) => void }[] = [];
    // `line` waits for a line of either stream (the CLI logs to stderr).
    const printed = (text: string): string | undefined => `${stdout}\n${stderr}`.split('\n').find((l) => l.includes(text));
    const check = (): void => {
      for (const w of [...watchers]) {
        const line = printed(w.text);
        if (line !== undefined) {
          watchers.splice(watchers.indexOf(w), 1);
          w.resolve(line);
        }
      }
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      check();
    });
    const done = new Promise<Exited>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr, at: Date.now() })),
    );
    return {
      child,
      done,
      line: (text) =>
        new Promise((resolve, reject) => {
          const found = printed(text);
          if (found !== undefined) return resolve(found);
          watchers.push({ text, resolve });
          void done.then((r) => reject(new Error(`exited (${r.code}) before printing '${text}': ${r.stderr}`)));
        }),
    };
  }

  /** `docpipe ...` against the sandbox, with the key in the environment, JSON logs. */
  function docpipe(args: string[], database = db, wrap: string[] = []): Running {
    return spawnNode(
      [BIN, ...args, '--db', database, '--base-url', sandbox.url, '--log-format', 'json'],
      'ignore',
      { DOCPIPE_API_KEY: SANDBOX_API_KEY },
      wrap,
    );
  }

  /**
   * As in a container of its own: pid 1 of a new pid namespace, with a host name of its own,
   * as a Kubernetes CronJob's pod or a `docker run` is. SIGKILL to the returned process kills
   * docpipe too (--kill-child).
   */
  const container = (name: string): string[] =>
    ['unshare', '--pid', '--fork', '--uts', '--mount-proc', '--kill-child', 'sh', '-c', `hostname ${name} && exec "$0" "$@"`];

  const exportArgs = (from: string, to: string): string[] =>
    ['export', 'visitors', '--project', 'docs', '--from', from, '--to', to, '--requests-per-hour', '100000'];

  /** Readers in a child process until `stop`. */
  async function readers(database: string, periodMs = 100): Promise<{ stop: () => Promise<ReaderStats> }> {
    const reader = spawnNode(['--input-type=module', '-e', READER, database, String(periodMs)], 'pipe');
    await reader.line('reading');
    return {
      stop: async () => {
        reader.child.stdin!.end();
        const result = await reader.done;
        expect(result.code, result.stderr).toBe(0);
        return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as ReaderStats;
      },
    };
  }

  /** A read-only holder of the file in a child process, started and ready: `take` makes it take the file, `release` lets go. */
  async function holder(database: string, holdMs = 0): Promise<{ pid: number; take: () => Promise<void>; release: () => Promise<Exited>; done: Promise<Exited> }> {
    const held = spawnNode(['--input-type=module', '-e', HOLDER, database, String(holdMs)], 'pipe');
    await held.line('ready');
    return {
      pid: held.child.pid!,
      done: held.done,
      take: async () => {
        held.child.stdin!.write('go\n');
        await held.line('held');
      },
      release: async () => {
        held.child.stdin!.end();
        return held.done;
      },
    };
  }

  /** Requests the sandbox served from index `from` on, as `dateFrom@offset` keys. */
  const servedKeys = (from: number, to = sandbox.requests.length, status?: number): string[] =>
    sandbox.requests
      .slice(from, to)
      .filter((r) => status === undefined || r.status === status)
      .map((r) => `${r.query.dateFrom}@${r.query.offset}`);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-concurrency-'));
    db = join(dir, 'x.duckdb');
  });

  afterEach(async () => {
    // Only the processes this test started, by their handles.
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 mid-walk wastes at most the request in flight; the re-run loads and resumes from the spool', async () => {
    await start({ faults: [SLOW] });
    // 4 day windows of 8, 8, 8 and 7 pages, walked most recent first.
    const args = exportArgs('2026-03-01', '2026-03-05');

    const killed = docpipe(args);
    // The 12th request is the 4th page of the second window: the first window's walk is complete.
    await pollUntil(() => sandbox.requests.length >= 12, 'the 12th request');
    killed.child.kill('SIGKILL');
    const dead = await killed.done;
    expect(dead.signal).toBe('SIGKILL');
    const servedKilled = sandbox.requests.length;
    const last = sandbox.requests.at(-1)!;
    expect(last.query.dateFrom).toBe('2026-03-03');
    expect(Number(last.query.offset)).toBeGreaterThan(0); // killed mid-way through a window
    // It had spooled every page it received: one completed walk, and one cut short before the request in flight.
    const spooled = new Spool(spoolDirFor(db)).walks();
    expect(spooled.map((w) => w.window.start).sort()).toEqual(['2026-03-03', '2026-03-04']);
    const [cut, done] = [spooled.find((w) => w.window.start === '2026-03-03')!, spooled.find((w) => w.window.start === '2026-03-04')!];
    expect(done.completed()).toMatchObject({ pages: 8 });
    expect(cut.completed()).toBeNull();
    expect(done.pages().length + cut.pages().length).toBe(servedKilled - 1);

    const rerun = await docpipe(args).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    const servedRerun = sandbox.requests.length - servedKilled;
    const resumed = summaryOf(rerun);
    expect(resumed).toMatchObject({ windowsLoaded: 4, windowsFromSpool: 1, windowsFailed: 0, requests: servedRerun });

    // The minimum: a clean export of the same range into a fresh database.
    const fresh = join(dir, 'clean.duckdb');
    const before = sandbox.requests.length;
    const clean = await docpipe(args, fresh).done;
    expect(clean.code, clean.stderr).toBe(0);
    const minimum = sandbox.requests.length - before;
    const api = await walkApi('2026-03-01', '2026-03-05');
    expect(minimum).toBe(api.pages); // 31
    expect(summaryOf(clean)).toMatchObject({ requests: minimum, windowsLoaded: 4 });

    const wasted = servedKilled + servedRerun - minimum;
    console.info(`kill -9: killed run ${servedKilled} requests, re-run ${servedRerun}, clean ${minimum}: ${wasted} wasted`);
    expect(wasted).toBeLessThanOrEqual(1);
    expect(Number(resumed.requests)).toBeLessThan(minimum);

    // Every request of both runs is in request_log, the killed run's included (its journal kept them).
    const log = await query<{ path: string; status: number | null; request_id: string }>(db, `SELECT path, status, request_id FROM request_log`);
    const logged = tally(log.map((r) => {
      const q = new URL(r.path, 'http://sandbox.invalid').searchParams;
      return `${q.get('dateFrom')}@${q.get('offset')}`;
    }));
    for (const [key, n] of tally(servedKeys(0, before, 200))) expect(logged.get(key) ?? 0, key).toBeGreaterThanOrEqual(n);
    expect(new Set(log.map((r) => r.request_id)).size).toBe(log.length);
    // At most one attempt was journalled and never reached the sandbox.
    expect(log.length - before).toBeGreaterThanOrEqual(0);
    expect(log.length - before).toBeLessThanOrEqual(1);
    // Each with its outcome, but the one in flight when the process died.
    expect(log.filter((r) => r.status !== 200).length).toBeLessThanOrEqual(1);

    // Every window, with the rows the API serves and a clean export loads; and the spool is gone.
    const recovered = (await content(db)) as { windows: { s: string; n: number }[] };
    expect(Object.fromEntries(recovered.windows.map((w) => [w.s, w.n]))).toEqual(api.rows);
    expect(recovered).toEqual(await content(fresh));
    const [counts] = await query<{ rows: number; loaded: number }>(db, `SELECT (SELECT count(*) FROM page_visitors)::INTEGER AS rows, (SELECT sum(row_count) FROM loaded_windows)::INTEGER AS loaded`);
    expect(counts!.rows).toBe(counts!.loaded);
    expect(new Spool(spoolDirFor(db)).walks()).toEqual([]);
  });

  it.runIf(CONTAINERS)('kill -9 in a container: a run in another container leaves its walks while its heartbeat beats, takes them over once it stops, and wastes at most the request in flight', async () => {
    await start({ faults: [SLOW] });
    const args = exportArgs('2026-03-01', '2026-03-05');
    const killed = docpipe(args, db, container('pod-a'));
    await pollUntil(() => sandbox.requests.length >= 12, 'the 12th request');
    killed.child.kill('SIGKILL');
    await killed.done;
    const servedKilled = sandbox.requests.length;
    // Its walks name pid 1 of host pod-a, which no later container can check by pid.
    const held = new Spool(spoolDirFor(db)).walks();
    expect(held.map((w) => w.owner())).toEqual(held.map(() => expect.objectContaining({ pid: 1, host: 'pod-a' })));
    expect(held.length).toBeGreaterThan(0);
    const completed = held.filter((w) => w.completed() !== null).length;

    // Its heartbeat is fresh: another container leaves those windows to it.
    const during = await docpipe(args, db, container('pod-b')).done;
    expect(during.code, during.stderr).toBe(0);
    expect(summaryOf(during)).toMatchObject({ windowsFromSpool: 0, windowsLoaded: 4 - held.length });
    const servedDuring = sandbox.requests.length - servedKilled;

    // Five minutes on, it has not beaten since: the next container takes its walks over.
    const alive = join(spoolDirFor(db), 'alive');
    const stale = new Date(Date.now() - 6 * 60_000);
    for (const name of readdirSync(alive)) utimesSync(join(alive, name), stale, stale);
    const after = await docpipe(args, db, container('pod-c')).done;
    expect(after.code, after.stderr).toBe(0);
    expect(summaryOf(after)).toMatchObject({ windowsLoaded: held.length, windowsFromSpool: completed });
    const servedAfter = sandbox.requests.length - servedKilled - servedDuring;
    expect(new Spool(spoolDirFor(db)).walks()).toEqual([]);

    const api = await walkApi('2026-03-01', '2026-03-05');
    const wasted = servedKilled + servedDuring + servedAfter - api.pages;
    console.info(`kill -9 in a container: ${servedKilled} + ${servedDuring} + ${servedAfter} requests for ${api.pages} pages: ${wasted} wasted`);
    expect(wasted).toBeLessThanOrEqual(1);
    const [runs] = await query<{ crashed: number; ok: number }>(
      db,
      `SELECT count(*) FILTER (WHERE status = 'crashed')::INTEGER AS crashed, count(*) FILTER (WHERE status = 'ok')::INTEGER AS ok FROM runs`,
    );
    expect(runs).toEqual({ crashed: 1, ok: 2 });
  });

  it('readers open the database between the writes of an export; the export exits 0', async () => {
    await start({ faults: [SLOW] });
    // An existing database, as an analyst's would be.
    const setup = await docpipe(exportArgs('2026-02-28', '2026-03-01')).done;
    expect(setup.code, setup.stderr).toBe(0);

    const reading = await readers(db);
    const started = Date.now();
    const run = await docpipe(exportArgs('2026-03-01', '2026-03-07')).done;
    const stats = await reading.stop();
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toMatchObject({ windowsLoaded: 6, windowsFailed: 0 });
    const busy = logLines(run).filter((l) => l.event === 'database busy').length;
    const attempts = stats.ok + stats.locked;
    console.info(describeReads(stats));
    console.info(`export ${Date.now() - started} ms: ${stats.ok}/${attempts} reads succeeded (${((100 * stats.ok) / attempts).toFixed(1)}%), ${stats.locked} met the lock; windows seen ${JSON.stringify(stats.seen)}; writer waited ${busy} times`);
    expectReadersGotIn(stats);
    // Readers saw the export's windows land between its writes: a state between before (1) and after (7).
    expect(stats.seen.some((n) => n > 1 && n < 7)).toBe(true);
  });

  it('readers open the database between the writes of a job batch; the batch exits 0', async () => {
    await start({ jobs: { pollsToFinish: 4 } });
    const file = join(dir, 'prompts.txt');
    writeFileSync(file, Array.from({ length: 6 }, (_, i) => `Fix page ${i} [pr]`).join('\n'));
    const submit = ['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.5'];
    // A dry run asks nothing of the API, and creates no database.
    const dry = await docpipe([...submit, '--dry-run']).done;
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(db)).toBe(false);
    expect(sandbox.requests).toHaveLength(0);
    // An existing database, as an analyst's would be.
    await Database.with(db, {}, () => Promise.resolve());

    const reading = await readers(db);
    const started = Date.now();
    const run = await docpipe(submit).done;
    const stats = await reading.stop();
    const ms = Date.now() - started;
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toMatchObject({ total: 6, submitted: 6 });
    expect(sandbox.jobs()).toHaveLength(6);
    const busy = logLines(run).filter((l) => l.event === 'database busy').length;
    const attempts = stats.ok + stats.locked;
    console.info(describeReads(stats));
    console.info(`jobs batch ${ms} ms: ${stats.ok}/${attempts} reads succeeded (${((100 * stats.ok) / attempts).toFixed(1)}%), ${stats.locked} met the lock; writer waited ${busy} times`);
    expect(ms).toBeGreaterThan(1_500); // it ran for a while: polls with backoff
    expectReadersGotIn(stats);
    const ledger = await query<{ status: string }>(db, `SELECT status FROM agent_jobs`);
    expect(ledger.map((r) => r.status)).toEqual(Array(6).fill('completed'));
  });

  it('a job batch that meets the file held past --lock-timeout stops submitting and exits 75; no prompt is posted twice', async () => {
    await start({ faults: [{ kind: 'slow', match: { method: 'POST' }, delayMs: 500, times: Infinity }] });
    const file = join(dir, 'prompts.txt');
    writeFileSync(file, Array.from({ length: 6 }, (_, i) => `Fix page ${i} [pr]`).join('\n'));
    const submit = ['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.5', '--concurrency', '1'];
    await Database.with(db, {}, () => Promise.resolve());
    // While the first POST is on its way, a reader takes the file for 4 s: the batch's write
    // of the answer waits 0.5 s (--lock-timeout) and gives up, and so would its closing read.
    const held = await holder(db, 4_000);
    const results = join(dir, 'outcomes.csv');
    writeFileSync(results, 'an earlier run\'s outcomes\n');
    const batch = docpipe([...submit, '--lock-timeout', '0.5', '--results', results]);
    await pollUntil(() => sandbox.requests.some((r) => r.method === 'POST'), 'the first POST');
    await held.take();
    const stopped = await batch.done;
    await held.done;
    expect(stopped.code, stopped.stderr).toBe(75);
    // It says so in its summary, and its end is not taken for a crash.
    expect(summaryOf(stopped)).toMatchObject({ stopped: 'locked' });
    // It stopped submitting there: the other prompts did not go on once the reader let go.
    expect(sandbox.jobs()).toHaveLength(1);
    // Its outcomes are unknown to it: an earlier results file is not written over with nothing.
    expect(readFileSync(results, 'utf8')).toBe('an earlier run\'s outcomes\n');
    expect(logLines(stopped).some((l) => l.event === 'results not written')).toBe(true);
    const warning = logLines(stopped).find((l) => l.event === 'job warning');
    expect(warning?.message).toMatch(new RegExp(`^job ${sandbox.jobs()[0]!.id} was created but could not be recorded`));
    // The answer was kept in the spool, as doctor says; the next run records that job and
    // follows it (it is not unknown, and not posted again), and posts each other prompt once.
    const doctor = await docpipe(['doctor', '--db', db]).done;
    expect(doctor.stdout).toContain(`jobs docs: job ${sandbox.jobs()[0]!.id} of prompt `);
    expect(doctor.stdout).toContain('was created while the database was held; its answer is kept in the spool');
    const status = await docpipe(['status']).done;
    expect(status.stdout).toContain('jobs: 1 created job kept in the spool (the database was held): the next jobs batch of the project records and follows it');
    // jobs list says that a job is missing from its list, and why.
    const listed = await docpipe(['jobs', 'list']).done;
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toContain('1 job created while the database was held is kept in the spool, not listed yet');
    // The dry run decides as the run will: that prompt's job is followed, not called unknown.
    const dry = await docpipe([...submit, '--dry-run']).done;
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).not.toContain('cut off while submitting');
    const rerun = await docpipe(submit).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(logLines(rerun).some((l) => l.event === 'earlier runs marked crashed')).toBe(false);
    expect(sandbox.jobs()).toHaveLength(6);
    expect(summaryOf(rerun)).toMatchObject({ submitted: 5, counts: { completed: 6 } });
    expect((await docpipe(['jobs', 'list']).done).stderr).not.toContain('kept in the spool');
    const [first] = await Database.with(db, { readOnly: true }, (d) =>
      d.all<{ job_id: string }>(`SELECT job_id FROM agent_jobs WHERE prompt = 'Fix page 0 [pr]'`),
    );
    expect(first?.job_id).toBe(sandbox.jobs()[0]!.id);
    expect(existsSync(join(`${db}.spool`, 'created'))).toBe(true);
    expect(readdirSync(join(`${db}.spool`, 'created', 'docs'))).toEqual([]);
  }, 90_000); // ten docpipe processes one after another: 28 s on a quiet machine

  it('a message sent while the file is held past --lock-timeout is kept in the spool; the next run records it as sent and follows its job, without sending it again', async () => {
    await start({ jobs: { pollsToFinish: 2 }, faults: [{ kind: 'slow', match: { method: 'POST' }, delayMs: 500, times: Infinity }] });
    const file = join(dir, 'prompts.txt');
    writeFileSync(file, 'Check /installation [nopr]\n');
    const submitted = await docpipe(['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.5']).done;
    expect(submitted.code, submitted.stderr).toBe(0);
    const jobId = sandbox.jobs()[0]!.id;
    const message = ['jobs', 'message', jobId, 'Add the Windows steps [pr]', '--project', 'docs', '--poll-interval', '0.5'];
    const posts = (): number => sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/message')).length;
    // While the message's POST is on its way, a reader takes the file for 4 s: the write of the
    // answer waits 0.5 s (--lock-timeout) and gives up.
    const held = await holder(db, 4_000);
    const run = docpipe([...message, '--lock-timeout', '0.5']);
    await pollUntil(() => posts() === 1, 'the message POST');
    await held.take();
    const stopped = await run.done;
    await held.done;
    expect(stopped.code, stopped.stderr).toBe(75);
    const warning = logLines(stopped).find((l) => l.event === 'message warning');
    expect(warning?.message).toMatch(new RegExp(`^message \\S+ was sent to job ${jobId} but could not be recorded yet \\(kept in the spool for the next run\\)`));
    const doctor = await docpipe(['doctor', '--db', db]).done;
    expect(doctor.stdout).toContain(`to job ${jobId} was sent while the database was held; its answer is kept in the spool`);
    const status = await docpipe(['status']).done;
    expect(status.stdout).toContain('jobs: 1 sent message kept in the spool (the database was held)');
    // The dry run decides as the run will: the message is sent, its job to be followed (not unknown).
    const dry = await docpipe([...message, '--dry-run']).done;
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/\bfollow\b/);
    expect(dry.stdout).not.toContain('unknown');
    // The next run, given another message to the job: the first is recorded as sent and its
    // job followed to its end before the second goes (a job's messages one after the other).
    const next = ['jobs', 'message', jobId, 'Now the macOS steps [pr]', '--project', 'docs', '--poll-interval', '0.5'];
    const rerun = await docpipe(next).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(posts()).toBe(2);
    const rows = await Database.with(db, { readOnly: true }, (d) =>
      d.all<{ prompt: string; status: string; job_status: string; pr_link: string | null; sent: string }>(
        `SELECT prompt, status, job_status, pr_link, strftime(sent_at, '%Y-%m-%dT%H:%M:%S.%f') AS sent FROM agent_messages ORDER BY sent_at`,
      ),
    );
    expect(rows.map((r) => [r.prompt, r.status, r.job_status])).toEqual([
      ['Add the Windows steps [pr]', 'sent', 'completed'],
      ['Now the macOS steps [pr]', 'sent', 'completed'],
    ]);
    expect(rows[0]?.pr_link).toMatch(/^https:/);
    // The second went only once the first's job had ended (its last poll before the POST).
    const traffic = sandbox.requests.filter((r) => r.path.includes(jobId)).map((r) => (r.method === 'POST' ? 'post' : 'poll'));
    expect(traffic.lastIndexOf('post')).toBeGreaterThan(traffic.indexOf('poll', traffic.indexOf('post') + 1));
    expect(readdirSync(join(`${db}.spool`, 'sent', 'docs'))).toEqual([]);
  });

  it('a writer waits for a reader that holds the file, logging database busy, and exits 0', async () => {
    await start();
    const setup = await docpipe(exportArgs('2026-02-28', '2026-03-01')).done;
    expect(setup.code, setup.stderr).toBe(0);

    // Held until the writer says it waits (a timed hold could end before a slow start).
    const held = await holder(db);
    await held.take();
    const writer = docpipe(exportArgs('2026-03-01', '2026-03-03'));
    await writer.line('"database busy"');
    const released = await held.release();
    const run = await writer.done;
    expect(released.stdout).toContain('released');
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run)).toMatchObject({ windowsLoaded: 2 });
    const busy = logLines(run).filter((l) => l.event === 'database busy');
    expect(busy.length).toBeGreaterThanOrEqual(1);
    expect(busy[0]).toMatchObject({ level: 'warn', holder: `process ${held.pid}` });
    // It finished after the reader let go.
    expect(run.at).toBeGreaterThanOrEqual(released.at);
  });

  it('SIGTERM ends a wait for a held file at once: exit 130, not after --lock-timeout', async () => {
    await start();
    await Database.with(db, {}, () => Promise.resolve());
    const held = await holder(db, 30_000);
    await held.take();
    const run = docpipe([...exportArgs('2026-03-01', '2026-03-03'), '--lock-timeout', '60']);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // started, and waiting for the file
    const signalled = Date.now();
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(logLines(stopped).some((l) => l.event === 'database busy')).toBe(true);
    await held.release();
  });

  it('Ctrl-C (SIGTERM) while a writer waits for the file mid-run: exit 130 with its summary, its end kept for the next run, not taken for a crash', async () => {
    await start({ faults: [SLOW] });
    const args = exportArgs('2026-03-01', '2026-03-09');
    const held = await holder(db);
    const run = docpipe([...args, '--lock-timeout', '60']);
    await pollUntil(() => sandbox.requests.length >= 2, 'the export to start fetching');
    await held.take();
    await run.line('"database busy"');
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    const summary = summaryOf(stopped);
    expect(summary).toMatchObject({ stopped: 'interrupted', exitCode: 130 });
    expect(logLines(stopped).find((l) => l.event === 'run end kept in the spool')).toMatchObject({ run: summary.runId });
    await held.release();
    const status = await docpipe(['status', '--format', 'json']).done;
    expect((JSON.parse(status.stdout) as { lastRun: unknown }).lastRun).toMatchObject({ runId: summary.runId, status: 'interrupted', exitCode: 130 });
    const rerun = await docpipe(args).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(logLines(rerun).some((l) => l.event === 'earlier runs marked crashed')).toBe(false);
  });

  it('Ctrl-C (SIGTERM) ends a reader\'s wait for a file a writer holds: exit 130 at once', async () => {
    await start();
    await Database.with(db, {}, () => Promise.resolve());
    const writer = spawnNode(['--input-type=module', '-e', RW_HOLDER, db], 'pipe');
    await writer.line('held');
    try {
      for (const command of [['status'], ['query', 'SELECT 1']]) {
        const reader = docpipe([...command, '--lock-timeout', '60']);
        await reader.line('"database busy"');
        const signalled = Date.now();
        reader.child.kill('SIGTERM');
        const stopped = await reader.done;
        expect(stopped.code, `${command[0]}: ${stopped.stderr}`).toBe(130);
        expect(Date.now() - signalled).toBeLessThan(5_000);
      }
    } finally {
      writer.child.stdin!.end();
      await writer.done;
    }
  });

  it('query --write waits for a reader too, and says so (not "waiting for a write")', async () => {
    await start();
    await Database.with(db, {}, () => Promise.resolve());
    const held = await holder(db);
    await held.take();
    const writer = docpipe(['query', '--write', 'CREATE TABLE notes (n INTEGER)', '--lock-timeout', '60']);
    const line = await writer.line('"database busy"');
    expect(JSON.parse(line)).toMatchObject({ holder: `process ${held.pid}`, detail: 'waiting for it to close the file' });
    await held.release();
    const done = await writer.done;
    expect(done.code, done.stderr).toBe(0);
  });

  it('--lock-timeout: a writer stops with exit 75 naming the holder; the re-run fetches only what is left', async () => {
    await start({ faults: [SLOW] });
    // 8 day windows, about 3 s of walking at 40 ms a page.
    const args = exportArgs('2026-03-01', '2026-03-09');
    const held = await holder(db);
    const first = docpipe([...args, '--lock-timeout', '0.5']);
    // Once it is fetching (its first writes and reads are done), a reader takes the file and keeps it.
    await pollUntil(() => sandbox.requests.length >= 2, 'the export to start fetching');
    await held.take();
    const stopped = await first.done;
    const servedFirst = sandbox.requests.length;
    await held.release();

    expect(stopped.code, stopped.stderr).toBe(75);
    // Its summary says why it stopped, though it could not record its end in the file: the
    // end is kept in the spool, for the next run to record.
    const firstSummary = summaryOf(stopped);
    expect(firstSummary).toMatchObject({ stopped: 'locked', exitCode: 75, windowsLoaded: 0 });
    expect(String(firstSummary.stopMessage)).toMatch(new RegExp(`^database .* is held by process ${held.pid} .*try again later$`));
    expect(logLines(stopped).find((l) => l.event === 'database busy')).toMatchObject({ holder: `process ${held.pid}` });
    // It waited once, for --lock-timeout: its end (and the last loads' open) did not wait again.
    expect(logLines(stopped).filter((l) => l.event === 'database busy')).toHaveLength(1);
    expect(logLines(stopped).find((l) => l.event === 'run end kept in the spool')).toMatchObject({ run: firstSummary.runId });
    // It stopped before walking every window, and kept what it fetched.
    const completedWalks = new Spool(spoolDirFor(db)).walks().filter((w) => w.completed() !== null).length;
    expect(completedWalks).toBeGreaterThanOrEqual(1);
    expect(await query(db, `SELECT count(*)::INTEGER AS n FROM loaded_windows`)).toEqual([{ n: 0 }]);

    // status shows how it ended, kept in the spool until the next run records it.
    const status = await docpipe(['status', '--format', 'json']).done;
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { lastRun: unknown }).lastRun).toMatchObject({ runId: firstSummary.runId, status: 'locked', exitCode: 75 });

    sandbox.clearFaults();
    const rerun = await docpipe(args).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    const servedRerun = sandbox.requests.length - servedFirst;
    expect(summaryOf(rerun)).toMatchObject({ windowsLoaded: 8, windowsFromSpool: completedWalks, requests: servedRerun });
    // The stopped run is recorded as it ended (not taken for crashed), and its kept end is gone.
    expect(logLines(rerun).some((l) => l.event === 'earlier runs marked crashed')).toBe(false);
    expect(await query(db, `SELECT status, exit_code::INTEGER AS code, summary->>'stopped' AS stopped FROM runs WHERE run_id = '${String(firstSummary.runId)}'`)).toEqual([
      { status: 'locked', code: 75, stopped: 'locked' },
    ]);
    expect(readdirSync(join(spoolDirFor(db), 'ends'))).toEqual([]);

    const fresh = join(dir, 'clean.duckdb');
    const before = sandbox.requests.length;
    const clean = await docpipe(args, fresh).done;
    expect(clean.code, clean.stderr).toBe(0);
    const minimum = sandbox.requests.length - before;
    console.info(`lock timeout: first run ${servedFirst} requests, re-run ${servedRerun}, clean ${minimum}`);
    expect(servedFirst).toBeLessThan(minimum); // work was left
    // No page was paid for twice: the re-run needed only what the first run had not fetched.
    expect(servedRerun).toBeLessThanOrEqual(minimum - servedFirst);
    expect(new Set(servedKeys(0, before)).size).toBe(before);
    expect(await content(db)).toEqual(await content(fresh));
    // Every request of both runs is in request_log (the stopped run's journal moved in with the re-run's writes).
    expect(await query(db, `SELECT count(*)::INTEGER AS n, count(DISTINCT request_id)::INTEGER AS ids FROM request_log`)).toEqual([{ n: before, ids: before }]);
  });

  it('a run that begins and ends while another waits on one slow answer is seen by it: no window fetched twice, the hourly budget kept', async () => {
    const { pages } = await walkApi('2026-02-27', '2026-03-09');
    // The first run's fourth request takes 5 s; a whole second run fits in that time.
    await start({ faults: [{ kind: 'slow', match: { path: '/visitors' }, skip: 3, times: 1, delayMs: 5_000 }] });
    // Exactly the budget the 10 windows need, shared by both runs.
    const args = [...exportArgs('2026-02-27', '2026-03-09').slice(0, -2), '--requests-per-hour', String(pages)];
    const first = docpipe(args);
    await pollUntil(() => sandbox.requests.length >= 3, 'the first run to send its slow request', 30_000);
    const second = await docpipe(args).done;
    expect(second.code, second.stderr).toBe(0);
    expect(summaryOf(second)).toMatchObject({ windowsLoaded: 9 }); // the first run's window is its own
    const firstDone = await first.done;
    expect(firstDone.code, firstDone.stderr).toBe(0);
    // The first run skipped what the second loaded after the first run's plan.
    expect(summaryOf(firstDone)).toMatchObject({ windowsLoaded: 1, windowsSkipped: 9, windowsLeftToOthers: 0 });
    const served = servedKeys(0);
    expect([...tally(served).values()].every((n) => n === 1), served.join(' ')).toBe(true);
    expect(served).toHaveLength(pages);
    expect(await query(db, `SELECT count(*)::INTEGER AS n FROM request_log`)).toEqual([{ n: pages }]);
  }, 60_000);

  it('a request in flight while a write moves the journal keeps its outcome in request_log', async () => {
    // The loader's write takes the journal file while a page request is in flight: the
    // request's start line goes into request_log with that write, its end line into a fresh file.
    const journal = new RequestJournal(new Spool(spoolDirFor(db)).requestsDir, 'run-1');
    const store = new Store(db, {}, journal);
    const attempt = { scope: 'analytics@http://127.0.0.1', method: 'GET', path: '/v1/analytics/docs/visitors?offset=0', startedAt: Date.now() };
    const id = journal.begin(attempt);
    await store.write(async () => undefined);
    journal.end(id, attempt, 200, 12);
    await store.write(async () => undefined);
    expect(await query(db, `SELECT request_id, status, duration_ms FROM request_log`)).toEqual([{ request_id: id, status: 200, duration_ms: 12 }]);
  });
});
