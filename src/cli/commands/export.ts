import type { Argv, CommandModule } from 'yargs';
import { METRICS, type Metric } from '../../core/domain.js';
import { UsageError } from '../../core/errors.js';
import { GRAINS, type Grain } from '../../extract/windows.js';
import { exportAnalytics } from '../../lib/analytics.js';
import { requireProjects } from '../api-key.js';
import { defineCommand, type CliContext } from '../context.js';
import { DEFAULT_REQUESTS_PER_HOUR, maxWaitMsOf, runAnalytics, waitOptions } from '../run-analytics.js';

function builder(yargs: Argv) {
  return waitOptions(yargs)
    .positional('metric', { choices: METRICS, demandOption: true, describe: 'what to export' })
    .option('from', { type: 'string', demandOption: true, describe: 'first day, YYYY-MM-DD (UTC)' })
    .option('to', { type: 'string', demandOption: true, describe: 'end day, exclusive like the API' })
    .option('window', { choices: GRAINS, default: 'day' as Grain, describe: 'window size' })
    .option('refresh', { type: 'boolean', default: false, describe: 'fetch windows even if loaded and settled' })
    .option('lookback-days', {
      type: 'number',
      default: 2,
      describe: 'a window is settled once fetched this many days after it ended',
    });
}

export function exportCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'export <metric>',
    describe: 'export unique visitors or page views for a date range into DuckDB',
    builder,
    handler: async (args) => {
      const lookbackDays = args['lookback-days'];
      if (!Number.isInteger(lookbackDays) || lookbackDays < 0) {
        throw new UsageError(`invalid --lookback-days '${String(lookbackDays)}': expected a whole number >= 0`);
      }
      const project = requireProjects(args);
      const maxWaitMs = maxWaitMsOf(args);
      const perHour = args.requestsPerHour ?? DEFAULT_REQUESTS_PER_HOUR;
      ctx.exitCode = await runAnalytics(ctx, args, perHour, (common) =>
        exportAnalytics({
          ...common,
          project,
          metric: args.metric as Metric,
          from: args.from,
          to: args.to,
          window: args.window,
          refresh: args.refresh,
          lookbackDays,
          requestsPerHour: perHour,
          maxWaitMs,
        }),
      );
    },
  });
}
