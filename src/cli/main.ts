/**
 * The CLI shell: parse arguments, run one command, map whatever it throws to one line on
 * stderr and an exit code. Commands read, call a planner, then write.
 */
import yargs from 'yargs';
import { DocpipeError, EXIT, InterruptedError, UsageError, exitCodeOf, type ExitCode } from '../core/errors.js';
import { LOG_FORMATS } from '../core/logger.js';
import { DEFAULT_BASE_URL } from '../api/http-client.js';
import { DEFAULT_DB_PATH, DEFAULT_LOCK_TIMEOUT_MS } from '../load/database.js';
import type { CliContext } from './context.js';
import { processIo, type CliIo } from './io.js';
import { exportCommand } from './commands/export.js';
import { queryCommand } from './commands/query.js';
import { sandboxCommand } from './commands/sandbox.js';
import { syncCommand } from './commands/sync.js';
import { jobsCommand } from './commands/jobs.js';
import { doctorCommand } from './commands/doctor.js';
import { dumpCommand } from './commands/dump.js';
import { reportCommand } from './commands/report.js';
import type { SessionOptions } from './session.js';

export interface RunCliOptions {
  io?: CliIo;
  http?: SessionOptions['http'];
}

function describeError(error: unknown, verbose: boolean): string {
  if (!(error instanceof Error)) return String(error);
  if (verbose) return error.stack ?? error.message;
  let text = error.message;
  // A wrapped DuckDB error: add its first line, which names the problem.
  if (error instanceof DocpipeError && error.cause instanceof Error && !(error.cause instanceof DocpipeError)) {
    const first = error.cause.message.split('\n')[0];
    if (first && error.name === 'DatabaseError') text += ` (${first})`;
  }
  return text.replace(/\s*\n\s*/g, ' ');
}

function buildParser(argv: string[], ctx: CliContext) {
  return yargs(argv)
    .scriptName('docpipe')
    .env('DOCPIPE')
    .option('api-key', { type: 'string', describe: 'admin API key (prefer DOCPIPE_API_KEY)' })
    .option('api-key-file', { type: 'string', describe: 'read the API key from this file' })
    .option('base-url', { type: 'string', default: DEFAULT_BASE_URL, describe: 'API base URL' })
    .option('project', { type: 'string', array: true, describe: 'project id (repeatable)' })
    .option('db', { type: 'string', default: DEFAULT_DB_PATH, describe: 'DuckDB database file' })
    .option('log-format', { choices: LOG_FORMATS, describe: 'text on a terminal, json otherwise' })
    .option('requests-per-hour', { type: 'number', describe: 'analytics request budget of the organization [default: 100]' })
    .option('max-requests', { type: 'number', describe: 'cap on requests in this run' })
    .option('lock-timeout', {
      type: 'number',
      default: DEFAULT_LOCK_TIMEOUT_MS / 1000,
      describe: 'seconds to wait for a database file another process holds, then exit 75',
    })
    .option('verbose', { type: 'boolean', default: false, describe: 'debug logs and stack traces' })
    .check((args) => {
      const rph = args['requests-per-hour'];
      if (rph !== undefined && (!Number.isFinite(rph) || rph < 1)) throw new UsageError(`invalid --requests-per-hour '${String(rph)}': expected a number >= 1`);
      const lock = args['lock-timeout'];
      if (!Number.isFinite(lock) || lock < 0) throw new UsageError(`invalid --lock-timeout '${String(lock)}': expected seconds >= 0`);
      const max = args['max-requests'];
      if (max !== undefined && (!Number.isInteger(max) || max < 0)) {
        throw new UsageError(`invalid --max-requests '${String(max)}': expected a whole number >= 0`);
      }
      return true;
    })
    .command(exportCommand(ctx))
    .command(syncCommand(ctx))
    .command(queryCommand(ctx))
    .command(jobsCommand(ctx))
    .command(sandboxCommand(ctx))
    .command(doctorCommand(ctx))
    .command(dumpCommand(ctx))
    .command(reportCommand(ctx))
    .demandCommand(1, 'name a command: export, sync, query, jobs, sandbox or doctor')
    .strict()
    .help()
    .version(false)
    .wrap(Math.min(100, process.stdout.columns || 100))
    .fail((message, error) => {
      if (error) throw error;
      throw new UsageError(message.replace(/\s*\n\s*/g, ' '));
    });
}

/** Runs the CLI; resolves to the exit code (it never calls process.exit). */
export async function runCli(argv: string[], options: RunCliOptions = {}): Promise<ExitCode> {
  let io = options.io;
  let controller: AbortController | undefined;
  let onSignal: (() => void) | undefined;
  if (!io) {
    controller = new AbortController();
    let interrupts = 0;
    onSignal = () => {
      interrupts++;
      if (interrupts > 1) process.exit(EXIT.interrupted);
      process.stderr.write('\nstopping: finishing the current step and saving what is done (Ctrl-C again to quit at once)\n');
      controller?.abort(new InterruptedError('interrupted'));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    io = processIo(controller.signal);
  }
  const ctx: CliContext = { io, exitCode: EXIT.ok, ...(options.http ? { http: options.http } : {}) };
  const verbose = argv.includes('--verbose');
  try {
    await buildParser(argv, ctx).parseAsync();
    return ctx.exitCode;
  } catch (error) {
    io.stderr(`docpipe: ${describeError(error, verbose)}\n`);
    return exitCodeOf(error);
  } finally {
    if (onSignal) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
