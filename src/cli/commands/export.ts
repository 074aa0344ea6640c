import type { Argv, CommandModule } from 'yargs';
import { METRICS, type Metric } from '../../core/domain.js';
import { MAX_LOOKBACK_DAYS } from '../../extract/plan-export.js';
import { GRAINS, checkNotFuture, planWindows, type Grain } from '../../extract/windows.js';
import { exportAnalytics } from '../../lib/analytics.js';
import { resolveRange } from '../../extract/relative-range.js';
import { loggerFor } from '../io.js';
import { requireProjects } from '../api-key.js';
import { commandHelp } from '../help.js';
import { numberOption } from '../options.js';
import { defineCommand, type CliContext } from '../context.js';
import { DEFAULT_REQUESTS_PER_HOUR, maxWaitMsOf, runAnalytics, waitOptions } from '../run-analytics.js';

function builder(yargs: Argv) {
  return waitOptions(yargs)
    .positional('metric', { choices: METRICS, demandOption: true, describe: 'the analytics endpoint to export' })
    .option('from', { type: 'string', describe: 'first day, YYYY-MM-DD (UTC)' })
    .option('to', { type: 'string', describe: 'end day, exclusive like the API' })
    .option('last', { type: 'string', describe: 'instead of --from/--to: the last 7d, 4w or 3m up to today (exclusive), in whole windows' })
    .option('window', { choices: GRAINS, default: 'day' as Grain, describe: 'window size' })
    .option('refresh', { type: 'boolean', default: false, describe: 'fetch windows even if loaded and settled' })
    .option('threads', {
      type: 'boolean',
      default: false,
      describe: 'assistant only: also fetch the transcript of every thread the conversations reference (one request per thread)',
    })
    .option(
      'lookback-days',
      numberOption('lookback-days', { integer: true, min: 0, max: MAX_LOOKBACK_DAYS }, {
        default: 2,
        describe: 'a window is settled once fetched this many days after it ended',
      }),
    );
}

function builderWithHelp(yargs: Argv) {
  return commandHelp(builder(yargs), {
    examples: [
      ['export visitors --from 2026-10-01 --to 2026-11-01', 'daily unique visitors of October (--to is exclusive)'],
      ['export views --from 2026-10-05 --to 2026-11-02 --window week', 'page views per ISO week (Monday to Monday)'],
      ['export visitors --from 2026-10-01 --to 2026-11-01 --window range', 'one window: the uniques of the whole month'],
      ['export visitors --from 2026-01-01 --to 2026-11-01 --wait', 'a long backfill that sleeps for the hourly budget'],
      ['export visitors --last 4w --window week', 'the last four whole ISO weeks'],
      ['export assistant --last 7d --threads', 'assistant conversations of the last week, with their threads'],
    ],
    epilogue:
      'Windows already loaded and settled are skipped (--refresh fetches them again). Needs DOCPIPE_API_KEY and\n' +
      '--project (or DOCPIPE_PROJECT). Exit 75: the run stopped early (the request budget, a failing API, a database\n' +
      'held too long); run it again later.',
  });
}

export function exportCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'export <metric>',
    describe: 'export an analytics endpoint (visitors, views, feedback, searches, assistant, ...) for a date range into DuckDB',
    builder: builderWithHelp,
    handler: async (args) => {
      const range = resolveRange(args, args.window, ctx.io.clock.now());
      const project = requireProjects(args);
      const maxWaitMs = maxWaitMsOf(args);
      const perHour = args.requestsPerHour ?? DEFAULT_REQUESTS_PER_HOUR;
      // Checked here, so that a bad range is named by the options typed.
      const windows = planWindows(range.from, range.to, args.window);
      checkNotFuture(windows, ctx.io.clock.now(), range.to, args.window);
      if (range.last !== undefined) {
        loggerFor(ctx.io, args).info('range', { last: range.last, from: range.from, to: range.to, window: args.window, windows: windows.length });
      }
      ctx.exitCode = await runAnalytics(ctx, args, perHour, (common) =>
        exportAnalytics({
          ...common,
          project,
          metric: args.metric as Metric,
          from: range.from,
          to: range.to,
          window: args.window,
          refresh: args.refresh,
          lookbackDays: args['lookback-days'],
          requestsPerHour: perHour,
          maxWaitMs,
          threads: args.threads,
        }),
      );
    },
  });
}
