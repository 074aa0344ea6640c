/**
 * `npm run soak`: kill -9 exports at random moments, then let one run to its end, round after
 * round, and check what DESIGN rule 9 promises at every moment a kill can land, not only at
 * the few the tests pick:
 *
 * - a kill wastes at most the request in flight: the requests the sandbox served in a round,
 *   less the pages a clean export needs, are at most the kills that landed;
 * - the request log is durable when the request is made: every request served is in
 *   `request_log`, and at most one more a kill (journalled, never answered);
 * - the database ends consistent: `docpipe doctor` finds nothing, every window of the range
 *   is loaded with the rows a clean export loads, and the spool is gone.
 *
 * Real parts throughout: docpipe processes (bin/docpipe.js), the sandbox over HTTP on
 * 127.0.0.1 in this process, DuckDB files. Prints a line a round and the totals; exits 1 on
 * the first broken promise, with what broke. SOAK_ROUNDS (default 10), SOAK_KILLS (kills a
 * round, default 3), SOAK_RUNS (runs started at once for each kill, default 1), SOAK_DAYS (daily windows, default 30), SOAK_PATHS (pages a day, default
 * 6000: 24 requests a window), SOAK_SEED (the kill moments; default from the clock, printed).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addDays } from '../extract/windows.js';
import { Database } from '../load/database.js';
import { plural } from '../load/doctor.js';
import { hashInts } from '../sandbox/random.js';
import { SANDBOX_API_KEY, startSandbox, type Sandbox } from '../sandbox/server.js';
import { spoolDirFor } from '../spool/spool.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'docpipe.js');
const ROUNDS = Math.max(1, Number(process.env.SOAK_ROUNDS ?? 10));
const KILLS = Math.max(1, Number(process.env.SOAK_KILLS ?? 3));
const RUNS = Math.max(1, Number(process.env.SOAK_RUNS ?? 1));
const DAYS = Math.max(1, Number(process.env.SOAK_DAYS ?? 30));
const PATHS = Math.max(1, Number(process.env.SOAK_PATHS ?? 6000));
const SEED = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000);
/** The sandbox's "now", fixed so that its data is the same in every run; every window is closed. */
const NOW = Date.parse('2026-03-10T06:00:00Z');
const TO = '2026-03-09';
const FROM = addDays(TO, -DAYS);

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

interface Counts {
  rows: number;
  windows: number;
  pages: number;
  logged: number;
  running: number;
}

/** Fractions in [0, 1) from the seed: the same seed kills at the same moments. */
function fraction(...at: number[]): number {
  return hashInts(SEED, ...at) / 2 ** 32;
}

function docpipe(args: string[]): { child: ReturnType<typeof spawn>; done: Promise<Exited> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY },
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const done = new Promise<Exited>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout })));
  return { child, done };
}

function exportArgs(sandbox: Sandbox, db: string): string[] {
  return ['export', 'visitors', '--project', 'soak', '--from', FROM, '--to', TO, '--db', db, '--base-url', sandbox.url,
    '--requests-per-hour', '1000000', '--log-format', 'json'];
}

async function counts(db: string): Promise<Counts> {
  const database = await Database.open(db, { readOnly: true });
  try {
    const [row] = await database.all<Record<keyof Counts, number>>(
      `SELECT (SELECT count(*) FROM page_visitors)::INTEGER AS rows,
              (SELECT count(*) FROM loaded_windows WHERE metric = 'visitors')::INTEGER AS windows,
              (SELECT coalesce(sum(pages), 0) FROM loaded_windows WHERE metric = 'visitors')::INTEGER AS pages,
              (SELECT count(*) FROM request_log WHERE scope LIKE 'analytics@%')::INTEGER AS logged,
              (SELECT count(*) FROM runs WHERE status = 'running')::INTEGER AS running`,
    );
    return row!;
  } finally {
    await database.close();
  }
}

/** The spool's files still there (walks, claims, journals), relative to the spool. */
function spoolLeft(db: string): string[] {
  const root = spoolDirFor(db);
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.parentPath.endsWith('alive'))
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
}

const dir = mkdtempSync(join(tmpdir(), 'docpipe-soak-'));
const sandbox = await startSandbox({ now: () => NOW, site: { paths: PATHS, minDailyVisitors: 3 } });
let failed = false;
function check(ok: boolean, what: string): void {
  if (ok) return;
  failed = true;
  console.log(`BROKEN: ${what}`);
}
try {
  // The minimum: a clean export of the range, timed to place the kills.
  const clean = join(dir, 'clean.duckdb');
  const started = performance.now();
  const first = await docpipe(exportArgs(sandbox, clean)).done;
  const cleanMs = performance.now() - started;
  if (first.code !== 0) throw new Error(`the clean export exited ${String(first.code)}`);
  const minimum = sandbox.requests.length;
  const expected = await counts(clean);
  console.log(`docpipe kill -9 soak: ${ROUNDS} rounds of ${KILLS} kills of ${plural(RUNS, 'run')} at once, ${DAYS} daily windows of ${PATHS} paths, seed ${SEED}`);
  console.log(`clean export: ${minimum} requests, ${expected.rows} rows, ${Math.round(cleanMs)} ms`);

  let landed = 0;
  let wasted = 0;
  for (let round = 1; round <= ROUNDS && !failed; round++) {
    const db = join(dir, `round-${round}.duckdb`);
    const before = sandbox.requests.length;
    let kills = 0;
    for (let k = 0; k < KILLS; k++) {
      // SOAK_RUNS runs at once, as cron and a person at a terminal may start them, each
      // killed at its own moment.
      const runs = Array.from({ length: RUNS }, () => docpipe(exportArgs(sandbox, db)));
      await Promise.all(
        runs.map(async (run, r) => {
          // Anywhere in a run, start-up and the last load included.
          await new Promise((resolve) => setTimeout(resolve, fraction(round, k, r) * cleanMs));
          if (run.child.exitCode === null && run.child.kill('SIGKILL')) kills++;
          const exited = await run.done;
          check(exited.signal === 'SIGKILL' || exited.code === 0, `round ${round}: a run exited ${String(exited.code)} before its kill`);
        }),
      );
    }
    const last = await docpipe(exportArgs(sandbox, db)).done;
    check(last.code === 0, `round ${round}: the run after the kills exited ${String(last.code)}`);
    const doctor = await docpipe(['doctor', '--db', db]).done;
    check(doctor.code === 0, `round ${round}: doctor exited ${String(doctor.code)}: ${doctor.stdout.trim()}`);
    const served = sandbox.requests.length - before;
    const found = await counts(db);
    const left = spoolLeft(db);
    const extra = served - minimum;
    landed += kills;
    wasted += extra;
    console.log(`round ${round}: ${plural(kills, 'kill')} landed, ${plural(served, 'request')} served (${extra} beyond the minimum), ${found.logged} in request_log, ` +
      `${found.windows} windows, ${found.rows} rows, doctor ${String(doctor.code)}`);
    check(extra <= kills, `round ${round}: ${plural(extra, 'request')} wasted by ${plural(kills, 'kill')}`);
    check(found.logged >= served && found.logged <= served + kills, `round ${round}: request_log has ${found.logged} requests, the sandbox served ${served}`);
    check(found.rows === expected.rows && found.windows === expected.windows, `round ${round}: ${found.windows} windows and ${found.rows} rows, against ${expected.windows} and ${expected.rows} clean`);
    check(found.running === 0, `round ${round}: ${found.running} runs still marked running`);
    check(left.length === 0, `round ${round}: spool left over: ${left.join(', ')}`);
    rmSync(db, { force: true });
  }
  console.log(`${plural(landed, 'kill')}, ${plural(wasted, 'request')} wasted in all: ${failed ? 'BROKEN' : 'OK'} (at most one a kill)`);
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
