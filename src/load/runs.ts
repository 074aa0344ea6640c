/** The runs table: one row per command run, with its outcome and summary. */
import { randomUUID } from 'node:crypto';
import { thisProcess } from '../core/process-identity.js';
import type { Logger } from '../core/logger.js';
import type { Executor } from './database.js';
import { startHeartbeat } from '../spool/liveness.js';
import { markRunsCrashed, readRunFacts, spoolRootOf, writeRunEnd } from './doctor-io.js';
import { dropRunEnd, keepRunEnd, readRunEnds } from '../spool/run-ends.js';
import { DatabaseBusyError, InterruptedError, type ExitCode } from '../core/errors.js';
import { runStatus, type StopReason } from '../core/outcome.js';
import type { Store } from './store.js';

export function newRunId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomUUID().slice(0, 8)}`;
}

/**
 * Records the start of a run (startRun) in one write, then removes the run ends kept in the
 * spool that the write recorded. Returns the runs marked crashed.
 */
export async function recordRunStart(store: Store, runId: string, command: string, now: number): Promise<string[]> {
  const { crashed, recorded, root } = await store.write((tx) => startRun(tx, runId, command, now));
  for (const id of recorded) dropRunEnd(root, id);
  return crashed;
}

/**
 * Records a run as `running`, with the process that runs it (so a crash can be told later).
 * First, runs left `running` by a process that is gone (the rule `docpipe doctor` applies)
 * are marked `crashed`, or get the end they kept in the spool (`recorded`: the spool's files
 * go once the caller's write has committed: recordRunStart).
 */
export async function startRun(tx: Executor, runId: string, command: string, now: number): Promise<{ crashed: string[]; recorded: string[]; root: string }> {
  const root = await spoolRootOf(tx);
  const running = await readRunFacts(tx, root);
  // A run whose end the spool kept is over, whether or not its process is (a library caller's).
  const ends = readRunEnds(root);
  const dead = running.filter((r) => r.alive === false || ends.has(r.runId)).map((r) => r.runId);
  // An end kept for a run no longer running was recorded already (the file outlived a commit).
  for (const runId of ends.keys()) if (!running.some((r) => r.runId === runId)) dropRunEnd(root, runId);
  const me = thisProcess();
  // The row names this process: processes elsewhere tell it alive by its heartbeat.
  startHeartbeat(root);
  const crashed = await markRunsCrashed(tx, dead, now);
  await tx.run(
    `INSERT INTO runs (run_id, command, started_at, status, pid, host, process_start)
     VALUES ($id, $command, $at::TIMESTAMPTZ, 'running', $pid, $host, $start)`,
    { id: runId, command, at: new Date(now).toISOString(), pid: me.pid, host: me.host, start: me.start ?? null },
  );
  return { crashed, recorded: dead.filter((id) => ends.has(id)), root };
}

/** Runs recorded `running` whose process is alive, or cannot be checked from here (another host). */
export async function readLiveRunIds(db: Executor): Promise<Set<string>> {
  return new Set((await readRunFacts(db)).filter((r) => r.alive !== false).map((r) => r.runId));
}

/** Whether a run other than `runId` is going (a docpipe process at work on this database now). */
export async function otherRunsLive(db: Executor, runId: string): Promise<boolean> {
  const live = await readLiveRunIds(db);
  live.delete(runId);
  return live.size > 0;
}

/** One log line for the runs `startRun` found crashed. */
export function logCrashedRuns(logger: Logger, runIds: readonly string[]): void {
  if (runIds.length === 0) return;
  logger.warn('earlier runs marked crashed', { runs: runIds, detail: 'left running by a process that is gone' });
}

export interface RunOutcome {
  status: string;
  exitCode: number;
  summary: unknown;
}

/** A run's outcome as `runs` records it: its status follows from why it stopped and its exit code. */
export function runOutcome(stopped: StopReason | null, exitCode: ExitCode, summary: unknown): RunOutcome {
  return { status: runStatus(stopped, exitCode), exitCode, summary };
}

export async function finishRun(tx: Executor, runId: string, outcome: RunOutcome, now: number): Promise<void> {
  await writeRunEnd(tx, runId, { ...outcome, finishedAt: now });
}

/**
 * Records a run's end; if the database stays held past the lock wait (the run may have stopped
 * for that very reason), keeps it in the spool for the next run to record (../spool/run-ends.ts)
 * and says so, rather than leave the run to be taken for crashed.
 */
export async function recordRunEnd(
  store: Store,
  spoolRoot: string,
  runId: string,
  outcome: RunOutcome,
  now: number,
  logger: Logger,
): Promise<void> {
  try {
    await store.write((tx) => finishRun(tx, runId, outcome, now));
  } catch (error) {
    // Held past the lock wait, or a stop (Ctrl-C, SIGTERM) during that wait.
    if (!(error instanceof DatabaseBusyError || error instanceof InterruptedError)) throw error;
    keepRunEnd(spoolRoot, runId, { ...outcome, finishedAt: now });
    logger.warn('run end kept in the spool', {
      run: runId,
      detail: 'the database stayed held; the next run records this run\'s end (and moves its request journal in)',
    });
  }
}

/**
 * The runs table's `pid, host, process_start` columns for a SELECT: a database of an earlier
 * release opened read-only is not migrated, and its runs lack some (NULLs stand in): 0.1.0
 * recorded none, schema versions 2 to 6 no process_start.
 */
export async function runOwnerColumns(db: Executor): Promise<string> {
  // pragma_table_info reads one table's entry; duckdb_columns() would load every table's
  // (about 12 ms on the first call after an open, at the start of every run).
  const names = new Set(
    (await db.all<{ name: string }>(`SELECT name FROM pragma_table_info('runs') WHERE name IN ('pid', 'process_start')`)).map((r) => r.name),
  );
  return [
    names.has('pid') ? 'pid, host' : 'NULL::INTEGER AS pid, NULL::VARCHAR AS host',
    names.has('process_start') ? 'process_start' : 'NULL::VARCHAR AS process_start',
  ].join(', ');
}
