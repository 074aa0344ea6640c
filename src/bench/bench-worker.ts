/**
 * One measured phase of the benchmark, in its own process so that its peak RSS is its own.
 *   fetch  URL FROM TO       walk and parse every page of every day window, load nothing
 *   export URL FROM TO DB    `docpipe export visitors` of the same windows into DuckDB
 *   dump DB OUT              `docpipe dump` of a database into a Parquet lake
 * Prints one JSON line: {phase, rows, requests, ms, cpuMs, phaseCpuMs, maxRssMb, dbBytes?, mainCpuMs?, mainWaitMs?,
 * toFirstRequestMs?, afterLastResponseMs?, betweenMs?, awaitingMs?}.
 */
import { subscribe } from 'node:diagnostics_channel';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fetchAnalyticsPage } from '../api/analytics.js';
import { HttpClient } from '../api/http-client.js';
import { systemClock } from '../core/clock.js';
import { walkWindow, type PageSink } from '../extract/page-walker.js';
import type { WalkState } from '../spool/spool.js';
import { planWindows } from '../extract/windows.js';
import { runCli } from '../cli/main.js';
import { SANDBOX_API_KEY } from '../sandbox/server.js';

const PROJECT = 'bench-site';

/** Keeps nothing: the baseline walks and parses every page, and stores none. */
function discardSink(): PageSink {
  let state: WalkState | null = null;
  return {
    state: () => state,
    begin: (next) => void (state = next),
    recover: () => [],
    writePage: () => undefined,
    truncate: () => undefined,
    close: () => undefined,
    complete: () => undefined,
  };
}

async function fetchOnly(url: string, from: string, to: string): Promise<{ rows: number; requests: number }> {
  let requests = 0;
  const client = new HttpClient({ apiKey: SANDBOX_API_KEY, baseUrl: url, afterAttempt: () => void requests++ });
  let rows = 0;
  // Most recent first, like the export.
  for (const window of planWindows(from, to, 'day').reverse()) {
    const walked = await walkWindow(
      (offset: number) => fetchAnalyticsPage(client, { metric: 'visitors', projectId: PROJECT, dateFrom: window.start, dateTo: window.end, offset }),
      discardSink(),
      { metric: 'visitors', projectId: PROJECT, window, runId: 'bench', now: () => Date.now(), requestsSpent: () => requests },
    );
    rows += walked.rows;
  }
  return { rows, requests };
}

/** Runs a docpipe command in this process; its summary (the last line it prints). Throws unless it exits 0. */
async function cliSummary<T>(args: string[]): Promise<T> {
  let out = '';
  const code = await runCli(args, { io: { stdout: (t) => void (out += t), stderr: () => undefined, isTTY: false, clock: systemClock } });
  if (code !== 0) throw new Error(`${args[0]} exited ${code}: ${out}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as T;
}

/**
 * The export's fixed costs, from node's HTTP client events: its start before the first request
 * (opening the database, the plan), and its end after the last answer (the last load). Listened
 * to in every phase alike, so that the events cost the fetch-only phase what they cost the export.
 */
let firstRequest: number | undefined;
let lastResponse: number | undefined;
/**
 * The walk's two halves, request by request: from an answer to the next request (the walk's
 * thread: parsing, checks, the spool, the journal; and waiting for a core) and from a request
 * to its answer (the server, and the network). Their totals, in ms.
 */
let betweenMs = 0;
let awaitingMs = 0;
let sentAt: number | undefined;
subscribe('http.client.request.start', () => {
  const now = performance.now();
  firstRequest ??= now;
  if (lastResponse !== undefined) betweenMs += now - lastResponse;
  sentAt = now;
});
subscribe('http.client.response.finish', () => {
  lastResponse = performance.now();
  if (sentAt !== undefined) awaitingMs += lastResponse - sentAt;
  sentAt = undefined;
});

async function exportAll(
  url: string,
  from: string,
  to: string,
  db: string,
): Promise<{ rows: number; requests: number; dbBytes: number; toFirstRequestMs?: number; afterLastResponseMs?: number }> {
  const started = performance.now();
  const summary = await cliSummary<{ rows: number; requests: number }>(
    ['export', 'visitors', '--project', PROJECT, '--from', from, '--to', to, '--base-url', url, '--db', db,
      '--api-key', SANDBOX_API_KEY, '--requests-per-hour', '1000000', '--log-format', 'json'],
  );
  // The file as a reader finds it once the run is over (DuckDB checkpoints when it closes).
  const dbBytes = statSync(db).size + (existsSync(`${db}.wal`) ? statSync(`${db}.wal`).size : 0);
  const ended = performance.now();
  return {
    rows: summary.rows,
    requests: summary.requests,
    dbBytes,
    ...(firstRequest === undefined || lastResponse === undefined
      ? {}
      : { toFirstRequestMs: Math.round(firstRequest - started), afterLastResponseMs: Math.round(ended - lastResponse) }),
  };
}

/** `docpipe dump` of a database into a Parquet lake: the rows of page_visitors it wrote. */
async function dumpAll(db: string, out: string): Promise<{ rows: number; requests: number }> {
  const summary = await cliSummary<{ tables: { table: string; rows: number }[] }>(['dump', '--out', out, '--db', db, '--log-format', 'json']);
  return { rows: summary.tables.find((t) => t.table === 'page_visitors')?.rows ?? 0, requests: 0 };
}

/**
 * The main thread's time on a CPU and its time runnable but waiting for one, from the
 * kernel's schedstat since the thread started (Linux; undefined elsewhere). The main thread
 * walks the pages; the wait shows how much the other threads (DuckDB's, the sandbox's) kept
 * it from a core.
 */
function mainThreadSched(): { mainCpuMs: number; mainWaitMs: number } | undefined {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    if (!Number.isFinite(onCpu) || !Number.isFinite(waiting)) return undefined;
    return { mainCpuMs: Math.round(onCpu! / 1e6), mainWaitMs: Math.round(waiting! / 1e6) };
  } catch {
    return undefined;
  }
}

const [phase, ...rest] = process.argv.slice(2);
const [url, from, to, db] = rest;
const usable = phase === 'dump' ? rest.length === 2 : url && from && to && (phase === 'fetch' || (phase === 'export' && db));
if (!usable) {
  console.error('usage: bench-worker fetch|export URL FROM TO [DB]  |  bench-worker dump DB OUT');
  process.exit(2);
}
const schedBefore = mainThreadSched();
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result =
  phase === 'fetch' ? await fetchOnly(url!, from!, to!) : phase === 'export' ? await exportAll(url!, from!, to!, db!) : await dumpAll(rest[0]!, rest[1]!);
const ms = performance.now() - started;
// The process's CPU over the timed phase only (cpuMs below also counts its start: node, the imports).
const phaseCpu = process.cpuUsage(cpuBefore);
const schedAfter = mainThreadSched();
// Over the timed phase only, as `ms` is.
const sched = schedBefore && schedAfter
  ? { mainCpuMs: schedAfter.mainCpuMs - schedBefore.mainCpuMs, mainWaitMs: schedAfter.mainWaitMs - schedBefore.mainWaitMs }
  : undefined;
const usage = process.resourceUsage();
const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
const split = phase === 'dump' ? {} : { betweenMs: Math.round(betweenMs), awaitingMs: Math.round(awaitingMs) };
console.log(JSON.stringify({ phase, ...result, ms: Math.round(ms), cpuMs: Math.round(cpuMs), phaseCpuMs: Math.round((phaseCpu.user + phaseCpu.system) / 1000), maxRssMb: Math.round(usage.maxRSS / 1024), ...sched, ...split }));
