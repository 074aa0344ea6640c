import type { Argv, CommandModule } from 'yargs';
import { startSandbox, parseFaultSpec, type FaultSpec } from '../../sandbox/server.js';
import { defineCommand, type CliContext } from '../context.js';

function builder(yargs: Argv) {
  return yargs
    .option('port', { type: 'number', default: 8787, describe: 'port on 127.0.0.1 (0 picks a free one)' })
    .option('seed', { type: 'number', default: 42, describe: 'seed for the simulated data' })
    .option('paths', { type: 'number', describe: 'pages per project' })
    .option('min-daily-visitors', { type: 'number', describe: 'floor of daily visitors per page' })
    .option('fault', { type: 'string', array: true, describe: 'inject a fault, e.g. rate-limit:times=3:retryAfter=2' });
}

export function sandboxCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'sandbox',
    describe: 'serve a local simulation of the API on 127.0.0.1',
    builder,
    handler: async (args) => {
      const faults: FaultSpec[] = (args.fault ?? []).map((f) => parseFaultSpec(f));
      const site = {
        ...(args.paths === undefined ? {} : { paths: args.paths }),
        ...(args['min-daily-visitors'] === undefined ? {} : { minDailyVisitors: args['min-daily-visitors'] }),
      };
      const sandbox = await startSandbox({ port: args.port, seed: args.seed, site, faults });
      // The first stdout line is the URL, so scripts can start it on port 0 and read it back.
      ctx.io.stdout(`${sandbox.url}\n`);
      ctx.io.stderr(
        `sandbox listening on ${sandbox.url} (API key: the built-in sandbox key, see README); Ctrl-C stops it\n`,
      );
      await new Promise<void>((resolve) => {
        if (ctx.io.signal?.aborted) resolve();
        ctx.io.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      await sandbox.close();
    },
  });
}
