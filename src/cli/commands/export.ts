import type { Argv, CommandModule } from 'yargs';
import { METRICS, type Metric } from '../../core/domain.js';
import { GRAINS, checkNotFuture, planWindows, type Grain } from '../../extract/windows.js';
import { isClosed } from '../../extract/plan-export.js';
import { requireProjects } from '../api-key.js';
import { loggerFor } from '../io.js';
import { commandHelp } from '../help.js';
import { numberOption } from '../options.js';
import { defineCommand, type CliContext } from '../context.js';
import { DEFAULT_REQUESTS_PER_HOUR, maxWaitMsOf, runAnalytics, waitOptions } from '../run-analytics.js';

function builder(yargs: Argv) {
  return waitOptions(yargs)
    .positional('metric', { choices: METRICS, demandOption: true, describe: 'what to export' })
    .option('from', { type: 'string', demandOption: true, describe: 'first day, YYYY-MM-DD (UTC)' })
    .option('to', { type: 'string', demandOption: true, describe: 'end day, exclusive like the API' })
    .option('window', { choices: GRAINS, default: 'day' as Grain, describe: 'window size' })
    .option('refresh', { type: 'boolean', default: false, describe: 'fetch windows even if loaded and settled' })
    .option(
      'lookback-days',
      numberOption('lookback-days', { integer: true, min: 0 }, {
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
    ],
    epilogue:
      'Windows already loaded and settled are skipped (--refresh fetches them again). Needs DOCPIPE_API_KEY and\n' +
      '--project (or DOCPIPE_PROJECT). Exit 75: the request budget stopped the run; run it again later.',
  });
}

export function exportCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'export <metric>',
    describe: 'export unique visitors or page views for a date range into DuckDB',
    builder: builderWithHelp,
    handler: async (args) => {
      const lookbackDays = args['lookback-days'];
      const windows = planWindows(args.from, args.to, args.window);
      checkNotFuture(windows, ctx.io.clock.now(), args.to);
      const projects = requireProjects(args);
      const open = windows.filter((w) => !isClosed(w, ctx.io.clock.now()));
      if (open.length > 0) {
        loggerFor(ctx.io, args).warn('window not closed yet', {
          windows: open.length,
          first: open[0]?.start,
          detail: 'today (UTC) is partial: these windows are re-fetched on later runs until they settle',
        });
      }
      ctx.exitCode = await runAnalytics(ctx.io, args, {
        command: `export ${args.metric}`,
        tasks: projects.map((projectId) => ({ metric: args.metric as Metric, projectId, grain: args.window, windows })),
        refresh: args.refresh,
        lookbackDays,
        perHour: args.requestsPerHour ?? DEFAULT_REQUESTS_PER_HOUR,
        maxWaitMs: maxWaitMsOf(args),
        maxRequests: args.maxRequests,
        ...(ctx.http ? { http: ctx.http } : {}),
      });
    },
  });
}
