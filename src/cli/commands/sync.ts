import { readFileSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../core/errors.js';
import { loggerFor } from '../io.js';
import { checkPipelineConfig } from '../../extract/pipeline-config.js';
import { planClosedWindows } from '../../extract/windows.js';
import { defineCommand, type CliContext } from '../context.js';
import { runAnalytics } from '../run-analytics.js';

function builder(yargs: Argv) {
  return yargs.positional('pipeline', {
    type: 'string',
    default: 'pipelines/nightly.json',
    describe: 'pipeline file',
  });
}

function readPipeline(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read pipeline file '${path}'`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`pipeline file '${path}' is not valid JSON`, { cause: error });
  }
}

export function syncCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'sync [pipeline]',
    describe: 'nightly incremental export of every closed window not yet settled',
    builder,
    handler: async (args) => {
      const path = args.pipeline;
      const check = checkPipelineConfig(readPipeline(path));
      const logger = loggerFor(ctx.io, args);
      for (const warning of check.warnings) logger.warn('pipeline', { file: path, warning });
      if (!check.config) throw new UsageError(`pipeline file '${path}': ${check.errors.join('; ')}`);
      const config = check.config;
      const windows = planClosedWindows(config.start, config.window, ctx.io.clock.now());
      // Explicit flags (or DOCPIPE_* variables) win over the file.
      ctx.exitCode = await runAnalytics(ctx.io, args, {
        command: `sync ${path}`,
        tasks: config.projects.flatMap((projectId) => config.metrics.map((metric) => ({ metric, projectId, windows }))),
        refresh: false,
        lookbackDays: config.lookbackDays,
        perHour: args.requestsPerHour ?? config.requestsPerHour,
        maxRequests: args.maxRequests ?? config.maxRequestsPerRun,
        ...(ctx.http ? { http: ctx.http } : {}),
      });
    },
  });
}
