/**
 * `docpipe status [PIPELINE_FILE]`: where the warehouse stands, from the database and the
 * spool alone (no API request). Per project x metric x grain: the newest settled window,
 * windows loaded and due, the requests they will cost and when they are done at the hourly
 * budget; the budget used in the last hour; the last run; pages waiting in the spool.
 * `--check DAYS` exits 1 when a series' newest data is older than that, for alerting.
 */
import { existsSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { checkBaseUrl } from '../../api/http-client.js';
import { BUDGET_WINDOW_MS, planRequestSlot } from '../../api/request-budget.js';
import type { Window } from '../../core/domain.js';
import { formatDuration } from '../../core/duration.js';
import { EXIT } from '../../core/errors.js';
import { grainOf } from '../../core/domain.js';
import { MAX_LOOKBACK_DAYS } from '../../extract/plan-export.js';
import { planDailyRequests, planEta, planRunsLeft, planSeriesStatus, type SeriesPlan, type SeriesStatus } from '../../extract/backlog.js';
import { PLACEHOLDER_PROJECT, planSyncSeries, resolveSyncProjects, type PipelineConfig } from '../../extract/pipeline-config.js';
import { Database, requireDatabaseFile, upgradeIfOlder } from '../../load/database.js';
import { plural } from '../../load/doctor.js';
import { surveySpool } from '../../load/doctor-io.js';
import { RequestLog } from '../../load/request-log.js';
import { readKnownWindows, readLastAnalyticsRun, readThreadBacklog, type LastRun } from '../../load/status-read.js';
import { Store } from '../../load/store.js';
import { RequestJournal } from '../../spool/request-journal.js';
import { Spool, spoolDirFor } from '../../spool/spool.js';
import { projectsOf } from '../api-key.js';
import { defineCommand, type CliContext } from '../context.js';
import { loggerFor, tellStderr } from '../io.js';
import { renderTable } from '../output/table.js';
import { numberOption } from '../options.js';
import { commandHelp } from '../help.js';
import { DEFAULT_PIPELINE_FILE, readPipelineFile } from '../pipeline-file.js';
import { DEFAULT_REQUESTS_PER_HOUR } from '../run-analytics.js';
import { readerOptions } from '../session.js';
import { jsonLine, neutralise } from '../../core/neutralise.js';

const STATUS_FORMATS = ['table', 'json'] as const;
type StatusFormat = (typeof STATUS_FORMATS)[number];

function builder(yargs: Argv) {
  return yargs
    .positional('pipeline', {
      type: 'string',
      describe: `pipeline file (default: ${DEFAULT_PIPELINE_FILE} when it names your projects; else what the database holds)`,
    })
    .option('format', { choices: STATUS_FORMATS, default: 'table' as StatusFormat, describe: 'a table, or one JSON object' })
    .option(
      'check',
      numberOption('check', { integer: true, min: 0 }, {
        describe: 'exit 1 when a series is more than this many days behind its newest closed window, or has nothing loaded (for alerting)',
      }),
    )
    .option(
      'lookback-days',
      numberOption('lookback-days', { integer: true, min: 0, max: MAX_LOOKBACK_DAYS }, {
        describe: 'without a pipeline file: a window is settled once fetched this many days after it ended [default: 2]',
      }),
    );
}

/** The report `status --format json` prints: its keys are stable (README lists them). */
export interface StatusReport {
  generatedAt: string;
  database: string;
  pipeline: string | null;
  budget: {
    scope: string;
    requestsPerHour: number;
    usedLastHour: number;
    freeNow: number;
    /** When the next request may start: now when a slot is free. */
    nextSlotAt: string;
  };
  lastRun: LastRun | null;
  /** `inUse`: walks a live run holds (it loads its own complete ones). */
  spool: { walks: number; completedWalks: number; inUse: number; pages: number; createdJobs: number; sentMessages: number };
  /**
   * Assistant threads the loaded conversations reference, and how many are fetched: each one
   * left costs a request of `export assistant --threads` (not in `backlogRequests`).
   */
  threads: { referenced: number; fetched: number; spooled: number; requestsLeft: number };
  series: SeriesStatus[];
  backlogWindows: number;
  backlogRequests: number;
  /** When the backlog is done at the hourly budget (a `--wait` run); null with no pipeline file. */
  etaAt: string | null;
  /**
   * Requests a nightly run spends first, on average, on the windows that close and those still
   * settling (most recent first), before the backlog; null with no pipeline file.
   */
  dailyRequests: number | null;
  /**
   * Nightly runs (one a day) the backlog needs, each spending `--max-requests` or else the
   * pipeline's `maxRequestsPerRun`, or the hourly budget where that is smaller (it stops the
   * run first), of which `dailyRequests` go on the day's windows first. Null with no cap, or
   * when a run's requests do not cover a day's (`backlogNeverDone`).
   */
  runsLeft: number | null;
  /** A run's cap does not cover a day's new and settling windows: the backlog is never done by cron. */
  backlogNeverDone: boolean;
  check: { maxAgeDays: number; stale: { projectId: string; metric: string; grain: string; dataAgeDays: number | null }[] } | null;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const span = (w: Window | null): string => (w ? `${w.start}..${w.end}` : '-');

/** The pipeline to plan with: a named file must be read; the default only when it names real projects. */
function choosePipeline(
  ctx: CliContext,
  args: {
    pipeline?: string | undefined;
    logFormat?: string | undefined;
    verbose: boolean;
    project?: string[] | undefined;
    requestsPerHour?: number | undefined;
    maxRequests?: number | undefined;
  },
): { file: string; config: PipelineConfig; projects: string[] } | null {
  const logger = loggerFor(ctx.io, args);
  const named = args.pipeline !== undefined;
  const file = args.pipeline ?? DEFAULT_PIPELINE_FILE;
  if (!named && !existsSync(file)) return null;
  // Its warnings speak of the budget status plans with (see perHour and cap below).
  const config = readPipelineFile(file, logger, { requestsPerHour: args.requestsPerHour, maxRequests: args.maxRequests });
  const override = projectsOf(args);
  if (!named && override.length === 0 && config.projects.includes(PLACEHOLDER_PROJECT)) {
    logger.info('pipeline not used', { file, detail: `it still has the placeholder project id '${PLACEHOLDER_PROJECT}': showing what the database holds` });
    return null;
  }
  return { file, config, projects: resolveSyncProjects(config, override, file) };
}

export function statusCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'status [pipeline]',
    describe: 'where the warehouse stands: backlog, requests and ETA, budget used, last run, spool (no API request)',
    builder: (yargs: Argv) =>
      commandHelp(builder(yargs), {
        examples: [
          ['status pipelines/nightly.json', 'what is loaded and due, the requests left and when they are done'],
          ['status --format json', 'one JSON object with stable keys, for monitoring'],
          ['status pipelines/nightly.json --check 2', 'exit 1 when a series is more than 2 days behind (for alerting)'],
        ],
        epilogue: 'Reads the database (read-only) and the spool only: no API request. README lists the JSON keys.',
      }),
    handler: async (args) => {
      const lookback = args['lookback-days'];
      requireDatabaseFile(args.db);
      const now = ctx.io.clock.now();
      const pipeline = choosePipeline(ctx, args);
      const options = readerOptions(ctx, args);
      // What it reads is this release's (request ids, the tables of every endpoint): a database
      // no writer of this release has opened yet is brought up to it first (a short write).
      await upgradeIfOlder(args.db, options);
      const { known, lastRun, threads } = await Database.with(args.db, options, async (db) => ({
        known: await readKnownWindows(db),
        lastRun: await readLastAnalyticsRun(db),
        threads: await readThreadBacklog(db),
      }));
      const spool = new Spool(spoolDirFor(args.db));
      const { walks, threads: spooledThreads, keptAnswers } = surveySpool(spool);
      const scope = `analytics@${checkBaseUrl(args.baseUrl).origin}`;
      const times = await new RequestLog(new Store(args.db, options), new RequestJournal(spool.requestsDir, 'status')).requestTimes(
        scope,
        now - BUDGET_WINDOW_MS,
      );

      const filter = projectsOf(args);
      const series: SeriesPlan[] = pipeline
        ? planSyncSeries(pipeline.config, pipeline.projects, now)
        : [...new Map(known
            .filter((k) => filter.length === 0 || filter.includes(k.projectId))
            .map((k) => {
              const grain = grainOf(k);
              return [`${k.projectId}\u0000${k.metric}\u0000${grain}`, { projectId: k.projectId, metric: k.metric, grain, windows: [], onlyKnown: true }] as const;
            })).values()].sort((a, b) => `${a.projectId} ${a.metric} ${a.grain}`.localeCompare(`${b.projectId} ${b.metric} ${b.grain}`));
      const statusInput = {
        series,
        known,
        spooled: walks.map((w) => ({ metric: w.metric, projectId: w.projectId, window: w.window, pages: w.pages, completed: w.completed !== null })),
        now,
        lookbackDays: pipeline?.config.lookbackDays ?? lookback ?? 2,
      };
      const statuses = planSeriesStatus(statusInput);
      // What each nightly run spends first on the day's new and settling windows.
      const dailyRequests = pipeline ? planDailyRequests(statusInput) : null;

      const perHour = args.requestsPerHour ?? pipeline?.config.requestsPerHour ?? DEFAULT_REQUESTS_PER_HOUR;
      const usedLastHour = times.filter((t) => t > now - BUDGET_WINDOW_MS).length;
      const backlogRequests = statuses.reduce((n, s) => n + s.backlogRequests, 0);
      // As sync takes it: --max-requests (DOCPIPE_MAX_REQUESTS) wins over the file's cap.
      const cap = args.maxRequests ?? pipeline?.config.maxRequestsPerRun;
      const perRun = cap === undefined ? undefined : Math.min(cap, Math.floor(perHour));
      const runsLeft = pipeline && perRun ? planRunsLeft(backlogRequests, perRun, dailyRequests ?? 0) : null;
      const report: StatusReport = {
        generatedAt: iso(now),
        database: args.db,
        pipeline: pipeline?.file ?? null,
        budget: {
          scope,
          requestsPerHour: perHour,
          usedLastHour,
          freeNow: Math.max(0, Math.floor(perHour) - usedLastHour),
          nextSlotAt: iso(now + planRequestSlot(times, now, perHour, BUDGET_WINDOW_MS)),
        },
        lastRun,
        spool: {
          walks: walks.length,
          // A live run's walks are its own to load: not waiting for the next run.
          completedWalks: walks.filter((w) => w.completed !== null && !w.ownerLive).length,
          inUse: walks.filter((w) => w.ownerLive).length,
          // Jobs the API created, and messages it took, while the file was held: the next run records them.
          createdJobs: keptAnswers.filter((k) => k.kind === 'created').length,
          sentMessages: keptAnswers.filter((k) => k.kind === 'sent').length,
          pages: walks.reduce((n, w) => n + w.pages, 0),
        },
        // Bodies in the spool are paid for: the next run loads them without a request.
        threads: { ...threads, spooled: spooledThreads.length, requestsLeft: Math.max(0, threads.referenced - threads.fetched - spooledThreads.length) },
        series: statuses,
        backlogWindows: statuses.reduce((n, s) => n + s.backlogWindows, 0),
        backlogRequests,
        etaAt: pipeline ? iso(planEta(times, now, perHour, backlogRequests)) : null,
        dailyRequests: dailyRequests === null ? null : Math.round(dailyRequests * 10) / 10,
        runsLeft,
        // With a cap, planRunsLeft is null only for a backlog cron never gets to.
        backlogNeverDone: pipeline !== null && !!perRun && runsLeft === null,
        check:
          args.check === undefined
            ? null
            : {
                maxAgeDays: args.check,
                stale: statuses
                  .filter((s) => s.dataAgeDays === null || s.dataAgeDays > (args.check ?? 0))
                  .map(({ projectId, metric, grain, dataAgeDays }) => ({ projectId, metric, grain, dataAgeDays })),
              },
      };
      ctx.io.stdout(args.format === 'json' ? jsonLine(report) : renderStatus(report, now));
      if (report.check && (report.check.stale.length > 0 || report.series.length === 0)) {
        const format = loggerFor(ctx.io, args).format;
        const stale = (text: string, fields: Record<string, unknown> = {}): void =>
          tellStderr(ctx.io, format, { level: 'warn', event: 'stale', text: `stale: ${text}`, fields });
        for (const s of report.check.stale) {
          const age = s.dataAgeDays === null ? 'no complete window loaded' : `newest complete window is ${s.dataAgeDays} days behind`;
          stale(`${s.metric} ${s.grain} of ${s.projectId}: ${age} (limit ${report.check.maxAgeDays})`, {
            metric: s.metric,
            grain: s.grain,
            project: s.projectId,
            data_age_days: s.dataAgeDays,
            limit_days: report.check.maxAgeDays,
          });
        }
        if (report.series.length === 0) stale('the database holds no analytics window');
        ctx.exitCode = EXIT.failed;
      }
    },
  });
}

function renderStatus(r: StatusReport, now: number): string {
  const lines: string[] = [];
  lines.push(`database ${r.database}${r.pipeline ? `, pipeline ${r.pipeline}` : ''}, as of ${r.generatedAt}`);
  const wait = Date.parse(r.budget.nextSlotAt) - now;
  lines.push(
    `budget ${r.budget.scope}: ${r.budget.usedLastHour} of ${r.budget.requestsPerHour} requests used in the last hour; ` +
      (wait <= 0 ? `${r.budget.freeNow} free now` : `next slot in ${formatDuration(wait)} (${r.budget.nextSlotAt})`),
  );
  if (r.lastRun) {
    const run = r.lastRun;
    const summary = (run.summary ?? {}) as { windowsLoaded?: number; requests?: number; stopMessage?: string | null };
    const facts = [
      `${run.status ?? '?'}${run.exitCode === null ? '' : `, exit ${run.exitCode}`}`,
      summary.windowsLoaded === undefined ? '' : `${summary.windowsLoaded} windows loaded`,
      summary.requests === undefined ? '' : `${summary.requests} requests`,
      summary.stopMessage ? `stopped: ${neutralise(summary.stopMessage)}` : '',
    ].filter((f) => f !== '');
    lines.push(`last run: ${neutralise(run.command ?? '?')} at ${run.startedAt ?? '?'}: ${facts.join(', ')}`);
  } else {
    lines.push('last run: none');
  }
  lines.push(
    `spool: ${plural(r.spool.pages, 'page')} waiting in ${plural(r.spool.walks, 'walk')} ` +
      `(${r.spool.completedWalks} complete: the next run loads them without a request` +
      `${r.spool.inUse > 0 ? `; ${r.spool.inUse} in use by a run at work` : ''})`,
  );
  if (r.spool.createdJobs > 0) {
    lines.push(`jobs: ${plural(r.spool.createdJobs, 'created job')} kept in the spool (the database was held): the next jobs batch of the project records and follows ${r.spool.createdJobs === 1 ? 'it' : 'them'}`);
  }
  if (r.spool.sentMessages > 0) {
    lines.push(`jobs: ${plural(r.spool.sentMessages, 'sent message')} kept in the spool (the database was held): the next jobs message run of the project records ${r.spool.sentMessages === 1 ? 'it and follows its job' : 'them and follows their jobs'}`);
  }
  if (r.threads.referenced > 0) {
    lines.push(`assistant threads: ${r.threads.fetched} of ${r.threads.referenced} fetched${r.threads.spooled > 0 ? `, ${r.threads.spooled} in the spool` : ''}; ${plural(r.threads.requestsLeft, 'request')} left for export assistant --threads`);
  }
  lines.push('');
  const rows = r.series.map((s) => ({
    project: s.projectId,
    metric: s.metric,
    grain: s.grain,
    'newest settled': span(s.newestSettled),
    'newest loaded': span(s.newestLoaded),
    loaded: s.windowsLoaded,
    due: r.pipeline ? s.backlogWindows : null,
    'requests left': r.pipeline ? s.backlogRequests : null,
    spooled: s.spooledPages,
  }));
  const table = renderTable(['project', 'metric', 'grain', 'newest settled', 'newest loaded', 'loaded', 'due', 'requests left', 'spooled'], rows);
  lines.push(table.replace(/\(\d+ rows?\)\n$/, '').trimEnd());
  if (r.pipeline && r.etaAt) {
    const left = Date.parse(r.etaAt) - now;
    const runs = r.runsLeft === null ? '' : `; ${r.runsLeft} run${r.runsLeft === 1 ? '' : 's'} from cron`;
    lines.push(
      r.backlogWindows === 0
        ? 'backlog: nothing due'
        : r.backlogRequests === 0
          ? `backlog: ${r.backlogWindows} window${r.backlogWindows === 1 ? '' : 's'}, all in the spool: the next run loads them without a request`
          : `backlog: ${r.backlogWindows} windows, about ${r.backlogRequests} requests; done by ${r.etaAt} at ${r.budget.requestsPerHour} requests/h ` +
            `(in ${formatDuration(left)}, with --wait)${runs}`,
    );
    if (r.backlogNeverDone) {
      lines.push(`warning: each nightly run spends about ${r.dailyRequests} requests on the day's new and settling windows first, as many as its cap or more: ` +
        'cron never gets to the backlog; raise maxRequestsPerRun, or backfill with sync --wait');
    }
  } else {
    lines.push('backlog: name a pipeline file (or edit pipelines/nightly.json) to see what is due');
  }
  if (r.check) {
    lines.push(
      r.check.stale.length === 0
        ? `check: every series has data within ${r.check.maxAgeDays} days`
        : `check: ${r.check.stale.length} series older than ${r.check.maxAgeDays} days`,
    );
  }
  return `${lines.join('\n')}\n`;
}
