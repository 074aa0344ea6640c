/** What `export` and `sync` share: open the database, run the export, record and report the run. */
import { EXIT, type ExitCode } from '../core/errors.js';
import { runExport, type ExportSummary, type ExportTask } from '../extract/run-export.js';
import { Database } from '../load/database.js';
import { finishRun, newRunId, startRun } from '../load/runs.js';
import { resolveApiKey } from './api-key.js';
import { loggerFor, type CliIo, type GlobalArgs } from './io.js';
import { createProgress } from './output/progress.js';
import { createSession, type SessionOptions } from './session.js';

/** The analytics budget of an organization (DESIGN §1). */
export const DEFAULT_REQUESTS_PER_HOUR = 100;

export interface AnalyticsRunOptions {
  command: string;
  tasks: ExportTask[];
  refresh: boolean;
  lookbackDays: number;
  perHour: number;
  maxRequests: number | undefined;
  /** Client overrides for tests and the benchmark. */
  http?: SessionOptions['http'];
}

export function formatSummary(s: ExportSummary & { retries: number }): string {
  const windows = (n: number): string => `${n} window${n === 1 ? '' : 's'}`;
  const parts = [
    `${windows(s.windowsPlanned)} planned`,
    `${s.windowsSkipped} skipped (already loaded)`,
    `${s.windowsLoaded} loaded`,
    `${s.windowsFailed} failed`,
    `${s.rows} rows`,
    `${s.requests} requests`,
    `${s.retries} retries`,
    `${s.warnings} warnings`,
  ];
  const tail =
    s.stopped === 'budget'
      ? `\nstopped early on the request budget (${s.stopMessage ?? ''}); ${windows(s.windowsLeft)} left for the next run`
      : s.stopped === 'interrupted'
        ? `\ninterrupted; ${windows(s.windowsLeft)} left, everything loaded so far is saved`
        : s.stopped === 'fatal'
          ? `\nstopped: ${s.stopMessage ?? ''}`
          : '';
  return `${parts.join(', ')}${tail}\n`;
}

export async function runAnalytics(io: CliIo, args: GlobalArgs, options: AnalyticsRunOptions): Promise<ExitCode> {
  const apiKey = resolveApiKey(args);
  const logger = loggerFor(io, args);
  const db = await Database.open(args.db, { threads: 1 });
  try {
    const runId = newRunId(io.clock.now());
    await startRun(db, runId, options.command, io.clock.now());
    const session = createSession({
      db,
      apiKey,
      baseUrl: args.baseUrl,
      scope: 'analytics',
      perHour: options.perHour,
      maxRequests: options.maxRequests,
      runId,
      clock: io.clock,
      autoFlushLog: false,
      ...(options.http ? { http: options.http } : {}),
    });
    const progress = createProgress(logger, io.stderr, io.isTTY);
    let summary: ExportSummary;
    try {
      summary = await runExport({
        db,
        client: session.client,
        budget: session.budget,
        clock: io.clock,
        runId,
        tasks: options.tasks,
        requestLog: session.log,
        refresh: options.refresh,
        lookbackDays: options.lookbackDays,
        ...(io.signal ? { signal: io.signal } : {}),
        onPlan: (plan) => progress.start(plan.toFetch),
        onWindow: (event) => progress.window(event),
      });
    } finally {
      progress.done();
      // Requests of windows that failed or were cut short still count against the budget.
      // After a database failure this may fail too; the first error is the one to report.
      await session.log.flush().catch((error: unknown) => logger.warn('request log not saved', { error: String(error) }));
    }
    const full = { ...summary, retries: session.stats.retries, runId };
    const status = summary.exitCode === EXIT.ok ? 'ok' : (summary.stopped ?? 'failed');
    await finishRun(db, runId, { status, exitCode: summary.exitCode, summary: full }, io.clock.now());
    if (logger.format === 'json') {
      io.stdout(JSON.stringify({ event: 'summary', command: options.command, ...full }) + '\n');
    } else {
      io.stdout(formatSummary(full));
    }
    return summary.exitCode;
  } finally {
    db.close();
  }
}
