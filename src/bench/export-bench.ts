/**
 * `npm run bench`: export a large synthetic site (90 daily windows of 6,000 paths) from the
 * sandbox, and in the same run fetch and parse the same pages without loading them, in
 * alternating rounds. Prints rows/s for each phase, each round's ratio and their median
 * (target >= 0.8), then exports 365 daily windows into another database. For both exports: peak RSS (target <= 300 MB, and it must not grow with the
 * length of the run) and bytes on disk per page row (target <= 20); then dumps the 365-window
 * database to Parquet (peak RSS, target <= 300 MB, as the export's). The sandbox runs in its
 * own process, as would a remote API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { addDays, utcToday } from '../extract/windows.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DAYS = Number(process.env.BENCH_DAYS ?? 90);
const LONG_DAYS = Number(process.env.BENCH_LONG_DAYS ?? 365);
const PATHS = Number(process.env.BENCH_PATHS ?? 6000);
// Five rounds: on a shared 2-core machine one run's per-round ratios have spanned 0.72 to 1.0.
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));

interface PhaseResult {
  phase: string;
  rows: number;
  requests: number;
  ms: number;
  /** CPU time of the phase's own process (all its threads, DuckDB's included), its start (node, the imports) too. */
  cpuMs: number;
  /** The same over the timed phase only. */
  phaseCpuMs?: number;
  maxRssMb: number;
  /** The main thread's (the walk's) CPU time in the phase, and its time runnable but waiting for a core (Linux only). */
  mainCpuMs?: number;
  mainWaitMs?: number;
  /** CPU time the sandbox spent serving the phase (Linux only). */
  sandboxCpuMs?: number;
  /** Size of the database file after an export. */
  dbBytes?: number;
  /** An export's fixed costs: from its start to its first request, and from its last answer to its end. */
  toFirstRequestMs?: number;
  afterLastResponseMs?: number;
  /** The walk's time from each answer to the next request, and from each request to its answer (totals). */
  betweenMs?: number;
  awaitingMs?: number;
}

/** CPU time used so far by a process, from /proc (Linux); undefined elsewhere. */
function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    return Number.isFinite(ticks) ? (ticks * 1000) / 100 : undefined; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

function startSandbox(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/docpipe.js'), 'sandbox', '--port', '0', '--no-rate-limit', '--paths', String(PATHS), '--min-daily-visitors', '3'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Its log stays out of the figures; it is shown only if the sandbox does not start.
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => void (log += chunk.toString()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (url) => resolve({ child, url: url.trim() }));
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${log.trim()}`)));
  });
}

async function runPhase(args: string[], sandboxPid?: number): Promise<PhaseResult> {
  const before = processCpuMs(sandboxPid);
  const result = await runWorker(args);
  const after = processCpuMs(sandboxPid);
  return before === undefined || after === undefined ? result : { ...result, sandboxCpuMs: after - before };
}

function runWorker(args: string[]): Promise<PhaseResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/bench/bench-worker.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench worker ${args[0]} exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as PhaseResult);
    });
  });
}

const perSecond = (r: PhaseResult): number => r.rows / (r.ms / 1000);

const dir = mkdtempSync(join(tmpdir(), 'docpipe-bench-'));
const { child, url } = await startSandbox();
try {
  const to = utcToday(Date.now());
  const from = addDays(to, -DAYS);
  console.log(`docpipe export benchmark: ${DAYS} daily windows, ${PATHS} paths per site, ${ROUNDS} rounds, sandbox at ${url}`);
  // Warm the sandbox over the measured range first: its code paths, and its cache of daily
  // counts (it holds about 300 days of this site), so that every measured phase finds the
  // sandbox in the same state. Warming only a few windows left the first fetch-only phase
  // computing every day's counts and the later phases not, which flattered the ratio.
  await runPhase(['fetch', url, from, to]);
  // Rounds of fetch-only and export, alternating: each export is compared with the fetch-only
  // phases on either side of it, and the median round is the result (the machine is shared).
  const fetches = [await runPhase(['fetch', url, from, to], child.pid)];
  const exports: PhaseResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    exports.push(await runPhase(['export', url, from, to, join(dir, `bench-${round}.duckdb`)], child.pid));
    fetches.push(await runPhase(['fetch', url, from, to], child.pid));
  }
  const long = LONG_DAYS > 0 ? await runPhase(['export', url, addDays(to, -LONG_DAYS), to, join(dir, 'bench-long.duckdb')], child.pid) : undefined;
  // The longest database, dumped to Parquet: the dump's memory must not grow with the history either.
  const dumped = LONG_DAYS > 0 ? await runPhase(['dump', join(dir, 'bench-long.duckdb'), join(dir, 'lake')]) : undefined;
  /** Round i's fetch-only rows/s: the mean of the fetch-only phases on either side of its export. */
  const fetchRate = (i: number): number => (perSecond(fetches[i]!) + perSecond(fetches[i + 1]!)) / 2;
  const ratios = exports.map((e, i) => perSecond(e) / fetchRate(i));
  const ratio = median(ratios);
  const seconds = (ms: number | undefined): string => (ms === undefined ? '-' : (ms / 1000).toFixed(2));
  const row = (name: string, r: PhaseResult): string =>
    `${name.padEnd(22)} ${String(r.rows).padStart(9)} ${String(r.requests).padStart(9)} ${seconds(r.ms).padStart(8)} ${Math.round(perSecond(r)).toString().padStart(10)} ${String(r.maxRssMb).padStart(8)} ${seconds(r.cpuMs).padStart(8)} ${seconds(r.mainCpuMs).padStart(11)} ${seconds(r.mainWaitMs).padStart(11)} ${seconds(r.sandboxCpuMs).padStart(13)}`;
  console.log(`${'phase'.padEnd(22)} ${'rows'.padStart(9)} ${'requests'.padStart(9)} ${'seconds'.padStart(8)} ${'rows/s'.padStart(10)} ${'peak MB'.padStart(8)} ${'cpu s'.padStart(8)} ${'main cpu s'.padStart(11)} ${'main wait s'.padStart(11)} ${'sandbox cpu s'.padStart(13)}`);
  for (const [i, f] of fetches.entries()) {
    console.log(row(`fetch+parse ${i + 1}`, f));
    const e = exports[i];
    if (e) console.log(row(`export ${i + 1} to DuckDB`, e));
  }
  if (long) console.log(row(`export ${LONG_DAYS} windows`, long));
  if (dumped) console.log(row(`dump ${LONG_DAYS} windows`, dumped));
  const verdict = (ok: boolean): string => (ok ? 'OK' : 'MISSED');
  console.log(`ratio export/fetch-only rows/s, per round: ${ratios.map((r) => r.toFixed(3)).join(', ')}`);
  console.log(`ratio export/fetch-only rows/s (median of ${ROUNDS}): ${ratio.toFixed(3)} (target >= 0.8) ${verdict(ratio >= 0.8)}`);
  const exported = exports.reduce((worst, e) => (e.maxRssMb > worst.maxRssMb ? e : worst));
  for (const [name, r] of [[`${DAYS} windows`, exported], [`${LONG_DAYS} windows`, long]] as const) {
    if (!r) continue;
    const perRow = (r.dbBytes ?? 0) / r.rows;
    console.log(`export ${name}: peak RSS ${r.maxRssMb} MB (target <= 300) ${verdict(r.maxRssMb <= 300)}; ` +
      `${perRow.toFixed(1)} bytes per page row on disk (target <= 20) ${verdict(perRow <= 20)}`);
  }
  if (dumped) console.log(`dump ${LONG_DAYS} windows to Parquet: peak RSS ${dumped.maxRssMb} MB (target <= 300) ${verdict(dumped.maxRssMb <= 300)}`);
  const waits = (phases: PhaseResult[]): string => seconds(medianOf(phases, (p) => p.mainWaitMs));
  const toFirst = medianOf(exports, (e) => e.toFirstRequestMs);
  const afterLast = medianOf(exports, (e) => e.afterLastResponseMs);
  if (toFirst !== undefined && afterLast !== undefined) {
    console.log(`export's fixed costs (medians): ${Math.round(toFirst)} ms before its first request, ` +
      `${Math.round(afterLast)} ms after its last answer (the last load, the run's record)`);
  }
  const perRequest = (phases: PhaseResult[], pick: (p: PhaseResult) => number | undefined): string =>
    medianOf(phases, (p) => { const v = pick(p); return v === undefined || p.requests === 0 ? undefined : v / p.requests; })?.toFixed(3) ?? '-';
  console.log(`per request (a phase's mean, median of the phases): from an answer to the next request ${perRequest(fetches, (p) => p.betweenMs)} ms in fetch-only, ` +
    `${perRequest(exports, (p) => p.betweenMs)} ms in the export (the walk's thread: parsing and checks, and the export's spool and journal, with DuckDB's thread beside it); ` +
    `from a request to its answer ${perRequest(fetches, (p) => p.awaitingMs)} and ${perRequest(exports, (p) => p.awaitingMs)} ms (the sandbox)`);
  // What the cores allow: a phase's CPU (its process's over the timed phase, and the sandbox's)
  // spread over every core, with none idle, is the least time it could take.
  const cores = availableParallelism();
  const demandMs = (p: PhaseResult): number | undefined =>
    p.phaseCpuMs === undefined || p.sandboxCpuMs === undefined ? undefined : p.phaseCpuMs + p.sandboxCpuMs;
  const inUse = (phases: PhaseResult[]): string =>
    medianOf(phases, (p) => { const d = demandMs(p); return d === undefined ? undefined : d / p.ms; })?.toFixed(2) ?? '-';
  const bounds = exports.map((e, i) => {
    const d = demandMs(e);
    return d === undefined ? undefined : e.rows / (d / cores / 1000) / fetchRate(i);
  });
  if (bounds.every((b) => b !== undefined)) {
    const cpu = (phases: PhaseResult[]): string => seconds(medianOf(phases, demandMs));
    console.log(`CPU (medians): fetch-only ${cpu(fetches)} s of CPU (its process and the sandbox), ${inUse(fetches)} of ${cores} cores in use; ` +
      `export ${cpu(exports)} s, ${inUse(exports)} cores. With all ${cores} cores busy all the time, the export's CPU would allow a ratio of at most ` +
      `${median(bounds as number[]).toFixed(3)}`);
  }
  console.log(`machine: ${cores} cores shared by the sandbox, the measured process and DuckDB's threads; ` +
    `the walk's thread waited for a core ${waits(fetches)} s (fetch-only) and ${waits(exports)} s (export), medians`);
  for (const e of exports) if (e.rows !== fetches[0]!.rows) console.log(`note: row counts differ (export ${e.rows}, fetch ${fetches[0]!.rows})`);
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

/** The median of what `pick` gives for each phase; undefined unless every phase gives a value. */
function medianOf(phases: readonly PhaseResult[], pick: (p: PhaseResult) => number | undefined): number | undefined {
  const known = phases.flatMap((p) => { const v = pick(p); return v === undefined ? [] : [v]; });
  return known.length > 0 && known.length === phases.length ? median(known) : undefined;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
