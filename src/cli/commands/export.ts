import type { Argv, CommandModule } from 'yargs';
import { isEventStream } from '../../api/endpoints.js';
import { METRICS, type Metric } from '../../core/domain.js';
import { UsageError } from '../../core/errors.js';
import { GRAINS, checkNotFuture, planWindows, type Grain } from '../../extract/windows.js';
import { isClosed } from '../../extract/plan-export.js';
import { requireProjects } from '../api-key.js';
import { loggerFor } from '../io.js';
import { defineCommand, type CliContext } from '../context.js';
import { DEFAULT_REQUESTS_PER_HOUR, maxWaitMsOf, runAnalytics, waitOptions } from '../run-analytics.js';

function builder(yargs: Argv) {
  return waitOptions(yargs)
    .positional('metric', { choices: METRICS, demandOption: true, describe: 'the analytics endpoint to export' })
    .option('from', { type: 'string', demandOption: true, describe: 'first day, YYYY-MM-DD (UTC)' })
    .option('to', { type: 'string', demandOption: true, describe: 'end day, exclusive like the API' })
    .option('window', { choices: GRAINS, default: 'day' as Grain, describe: 'window size' })
    .option('refresh', { type: 'boolean', default: false, describe: 'fetch windows even if loaded and settled' })
    .option('threads', {
      type: 'boolean',
      default: false,
      describe: 'assistant only: also fetch the transcript of every thread the conversations reference (one request per thread)',
    })
    .option('lookback-days', {
      type: 'number',
      default: 2,
      describe: 'a window is settled once fetched this many days after it ended',
    });
}

export function exportCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'export <metric>',
    describe: 'export an analytics endpoint (visitors, views, feedback, searches, assistant, ...) for a date range into DuckDB',
    builder,
    handler: async (args) => {
      const lookbackDays = args['lookback-days'];
      if (!Number.isInteger(lookbackDays) || lookbackDays < 0) {
        throw new UsageError(`invalid --lookback-days '${String(lookbackDays)}': expected a whole number >= 0`);
      }
      const metric = args.metric as Metric;
      if (isEventStream(metric) && args.window !== 'day') {
        throw new UsageError(`invalid --window '${args.window}' for ${metric}: events are fetched and replaced one day window at a time; use --window day`);
      }
      if (args.threads && metric !== 'assistant') {
        throw new UsageError(`--threads is for 'export assistant', not '${metric}'`);
      }
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
        tasks: projects.map((projectId) => ({ metric, projectId, grain: args.window, windows })),
        refresh: args.refresh,
        lookbackDays,
        perHour: args.requestsPerHour ?? DEFAULT_REQUESTS_PER_HOUR,
        maxWaitMs: maxWaitMsOf(args),
        maxRequests: args.maxRequests,
        ...(args.threads ? { threads: { projects, range: { start: args.from, end: args.to } } } : {}),
        ...(ctx.http ? { http: ctx.http } : {}),
      });
    },
  });
}
