/**
 * The CLI shell: parse arguments, run one command, map whatever it throws to one line on
 * stderr and an exit code. Commands read, call a planner, then write.
 */
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { DatabasePathError, DocpipeError, EXIT, InterruptedError, UsageError, exitCodeOf, type ExitCode } from '../core/errors.js';
import { createLogger, LOG_FORMATS } from '../core/logger.js';
import { DEFAULT_BASE_URL, redactKeys } from '../api/http-client.js';
import { checkDbPath, DEFAULT_DB_PATH, DEFAULT_LOCK_TIMEOUT_MS, startEngine } from '../load/database.js';
import type { CliContext } from './context.js';
import { loggerFor, processIo, requestedLogFormat, tellStderr, type CliIo, type GlobalArgs } from './io.js';
import { exportCommand } from './commands/export.js';
import { queryCommand } from './commands/query.js';
import { sandboxCommand } from './commands/sandbox.js';
import { syncCommand } from './commands/sync.js';
import { jobsCommand } from './commands/jobs.js';
import { doctorCommand } from './commands/doctor.js';
import { statusCommand } from './commands/status.js';
import { dumpCommand } from './commands/dump.js';
import { reportCommand } from './commands/report.js';
import type { SessionOptions } from '../lib/session.js';
import { GLOBAL_OPTIONS, withEnv } from './help.js';
import { packageVersion } from '../core/version.js';
import { checkNumberValuesGiven, numberOption } from './options.js';
import { neutralise } from '../core/neutralise.js';

export interface RunCliOptions {
  io?: CliIo;
  http?: SessionOptions['http'];
  /** Stop signals the process received before the CLI was loaded (bin/docpipe.js keeps them): each is handled as if it came now. */
  signals?: readonly NodeJS.Signals[];
  /**
   * Removes the listeners that kept `signals`, called once the CLI's own are in place (in the
   * same turn): a process with no listener for a signal drops one already on its way to it.
   */
  releaseSignals?: () => void;
}

function describeError(error: unknown, verbose: boolean): string {
  if (!(error instanceof Error)) return String(error);
  const line = errorLine(error);
  if (!verbose) return line;
  // The line, then each error of the chain with its stack (a full disk's ENOSPC is a cause).
  const chain: string[] = [];
  for (let at: unknown = error; at instanceof Error && chain.length < 5; at = at.cause) {
    chain.push((at.stack ?? `${at.name}: ${at.message}`).split('\n').map(neutralise).join('\n'));
  }
  return `${line}\n${chain.join('\ncaused by: ')}`;
}

/** An error as one line: its message, a DuckDB cause's first line, inert on a terminal. */
function errorLine(error: Error): string {
  let text = error.message;
  if (error instanceof DatabasePathError) text += ' (check --db or DOCPIPE_DB)';
  // A wrapped DuckDB error: add its first line, which names the problem.
  if (error instanceof DocpipeError && error.cause instanceof Error && !(error.cause instanceof DocpipeError)) {
    const first = error.cause.message.split('\n')[0];
    if (first && error.name === 'DatabaseError') text += ` (${first})`;
  }
  // One line, and inert on a terminal: an error may carry the API's words. A usage error's line
  // breaks are the value typed (`--from $'2026-11-01\n2026'`): shown as such (\x0a), not as
  // the space another message's line breaks become.
  return neutralise(error instanceof UsageError ? text : text.replace(/\s*\n\s*/g, ' '));
}

const COMMANDS = 'export, sync, status, query, report, dump, jobs, sandbox or doctor';

const MAIN_EPILOGUE = [
  'Every option can also be set in the environment as DOCPIPE_<OPTION>: DOCPIPE_API_KEY (the',
  'admin key; prefer it to --api-key, which shows in the process list), DOCPIPE_BASE_URL,',
  'DOCPIPE_API_KEY_FILE, DOCPIPE_PROJECT, DOCPIPE_DB, DOCPIPE_LOG_FORMAT, DOCPIPE_REQUESTS_PER_HOUR,',
  'DOCPIPE_MAX_REQUESTS, DOCPIPE_LOCK_TIMEOUT, DOCPIPE_VERBOSE.',
  '',
  'Exit codes: 0 done; 1 failed; 2 bad usage or input; 75 stopped early (the request budget, a failing',
  'API, a database held too long; the next run carries on); 130 interrupted (Ctrl-C, SIGTERM, SIGHUP),',
  'what finished is saved.',
  '',
  'Try it offline: `docpipe sandbox` serves a local API and prints its key. `docpipe <command> --help`',
  'shows each command\'s options and examples.',
].join('\n');

function buildParser(ctx: CliContext, argv: readonly string[]) {
  return yargs()
    .scriptName('docpipe')
    // Values reach the checks as typed: yargs would read `0x2` and `1e2` as numbers first,
    // and a numeric-looking job id or project as a number.
    .parserConfiguration({ 'parse-numbers': false, 'parse-positional-numbers': false })
    .env('DOCPIPE')
    .usage('docpipe <command> [options]\n\nExport Mintlify docs analytics into DuckDB, and drive the docs agent in bulk.')
    .option('api-key', { type: 'string', describe: withEnv('api-key', 'admin API key (prefer the variable: a flag shows in the process list)') })
    .option('api-key-file', { type: 'string', describe: withEnv('api-key-file', 'read the API key from this file') })
    .option('base-url', { type: 'string', default: DEFAULT_BASE_URL, describe: withEnv('base-url', 'API base URL') })
    // One value per --project (nargs): an array option takes every word after it, so the SQL of
    // `query --project docs "SELECT 1"` was taken for a second project.
    .option('project', { type: 'string', array: true, nargs: 1, describe: withEnv('project', 'project id (repeatable, or comma-separated)') })
    .option('db', { type: 'string', default: DEFAULT_DB_PATH, describe: withEnv('db', 'DuckDB database file'), coerce: (raw: unknown) => checkDbPath(raw) })
    .option('log-format', { choices: LOG_FORMATS, describe: withEnv('log-format', 'text on a terminal, json otherwise') })
    .option(
      'requests-per-hour',
      numberOption('requests-per-hour', { integer: true, min: 1 }, {
        describe: withEnv('requests-per-hour', 'analytics request budget of the organization [default: 100]'),
      }),
    )
    .option('max-requests', numberOption('max-requests', { integer: true, min: 0 }, { describe: withEnv('max-requests', 'cap on requests in this run') }))
    .option(
      'lock-timeout',
      numberOption('lock-timeout', { min: 0, seconds: true }, {
        default: DEFAULT_LOCK_TIMEOUT_MS / 1000,
        describe: withEnv('lock-timeout', 'how long to wait for a database file another process holds, then exit 75: seconds, or 90s, 5m, 1h'),
      }),
    )
    .option('verbose', { type: 'boolean', default: false, describe: withEnv('verbose', 'debug logs and stack traces') })
    .group([...GLOBAL_OPTIONS], 'Global options:')
    .command(exportCommand(ctx))
    .command(syncCommand(ctx))
    .command(queryCommand(ctx))
    .command(jobsCommand(ctx))
    .command(sandboxCommand(ctx))
    .command(doctorCommand(ctx))
    .command(statusCommand(ctx))
    .command(dumpCommand(ctx))
    .command(reportCommand(ctx))
    .demandCommand(1, `name a command: ${COMMANDS}`)
    .recommendCommands()
    .strict()
    .help()
    .alias('help', 'h')
    .version('version', 'show the version', packageVersion())
    .alias('version', 'V')
    .example('docpipe sandbox', 'serve a local API to try docpipe against (prints its URL and key)')
    .example('docpipe export visitors --from 2026-10-01 --to 2026-11-01', 'daily unique visitors of October')
    .example('docpipe sync', 'the nightly run of pipelines/nightly.json')
    .example('docpipe query "SELECT * FROM daily_site LIMIT 7"', 'SQL on the database')
    .epilogue(MAIN_EPILOGUE)
    // yargs renders a command's help after each run whether shown or not (about 20 ms of
    // wrapping on a run's start): wrapped only when it will be shown.
    .wrap(asksForHelp(argv) ? Math.min(100, process.stdout.columns || 100) : null)
    .fail((message, error) => {
      // yargs rethrows what a `coerce` throws as its own YError, a usage error like the rest.
      if (error && error.name === 'YError') throw new UsageError(usageMessage(error.message, argv), { cause: error });
      if (error) throw error;
      throw new UsageError(usageMessage(message, argv));
    });
}

/** Every command and subcommand name, to tell which word of the command line was mistyped. */
const COMMAND_WORDS = new Set(['export', 'sync', 'query', 'jobs', 'sandbox', 'doctor', 'submit', 'list']);

/** The options before a command that take no value (the rest take the word after them). */
const FLAG_OPTIONS = new Set(['--verbose', '--help', '-h', '--version', '-V']);

/**
 * Pure: whether an option typed as `arg` takes the word after it as its value: an option
 * without `=` that is not a `--no-` form and not one of `flags` (which take none).
 */
function takesValue(arg: string, flags: ReadonlySet<string>): boolean {
  return arg.startsWith('-') && !arg.includes('=') && !arg.startsWith('--no-') && !flags.has(arg);
}

/** An option's name as yargs keys it both ways: `dry-run` and `dryRun`. */
const camelCase = (option: string): string => option.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const kebabCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * Pure: the word of the command line that stands where a command should: the first that is
 * neither an option nor an option's value. An option's value (the key after --api-key, a
 * path after --db) is never taken for a mistyped command, so it is never echoed: an option
 * not known here is taken to have a value unless the next word is an option itself (a
 * command's yes/no flag such as --refresh, before --api-key), and the key itself, wherever it
 * stands, is never the answer.
 */
export function typedCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): string | undefined {
  const keys = new Set([env.DOCPIPE_API_KEY, ...keysOnCommandLine(argv)].flatMap((k) => (k === undefined || k.trim() === '' ? [] : [k, k.trim()])));
  const shown = (word: string | undefined): string | undefined => (word === undefined || keys.has(word) ? undefined : word);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return shown(argv[i + 1]);
    if (!arg.startsWith('-')) {
      if (!COMMAND_WORDS.has(arg)) return shown(arg);
      continue;
    }
    if (takesValue(arg, FLAG_OPTIONS) && !(argv[i + 1] ?? '').startsWith('-')) i++; // its value
  }
  return undefined;
}

/** The values given to --api-key (or its other spellings) on the command line. */
function keysOnCommandLine(argv: readonly string[]): string[] {
  return ['--api-key', '--apiKey', '--apikey', '--api-Key'].flatMap((name) => valuesOf(argv, name));
}

/**
 * `text` with every API key this command line could mean blanked out: DOCPIPE_API_KEY's, the
 * values given to --api-key, and the key file's (--api-key-file or DOCPIPE_API_KEY_FILE).
 */
function withoutKeys(text: string, argv: readonly string[]): string {
  const files = [process.env.DOCPIPE_API_KEY_FILE, ...valuesOf(argv, '--api-key-file'), ...valuesOf(argv, '--apiKeyFile')];
  const fromFiles = files.flatMap((file) => {
    if (file === undefined || file === '') return [];
    try {
      return [readFileSync(file, 'utf8').trim()];
    } catch {
      return [];
    }
  });
  // As given and as used (docpipe trims a key: a secret file's trailing newline).
  const keys = [process.env.DOCPIPE_API_KEY, ...keysOnCommandLine(argv), ...fromFiles]
    .flatMap((k) => (k === undefined ? [] : [k, k.trim()]))
    .filter((k) => k.trim() !== '');
  return redactKeys(text, keys);
}

/** The values given to an option on the command line (`--name value` or `--name=value`). */
function valuesOf(argv: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith(`${name}=`)) values.push(arg.slice(name.length + 1));
    else if (arg === name && argv[i + 1] !== undefined) values.push(argv[i + 1]!);
  }
  return values;
}

const ENV_TRUE = new Set(['true', '1', 'yes', 'on']);
const ENV_FALSE = new Set(['false', '0', 'no', 'off', '']);

/**
 * The yes/no options of this command set in the environment (DOCPIPE_WAIT=1), read as a cron
 * file writes them: yargs takes only `true` for yes, and anything else silently for no. One
 * typed on the command line wins, as for every option; a value that is neither is refused.
 */
export function readEnvFlags(parsed: Record<string, unknown>, argv: readonly string[], env: Readonly<Record<string, string | undefined>>): void {
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('DOCPIPE_') || raw === undefined) continue;
    const option = name.slice('DOCPIPE_'.length).toLowerCase().replace(/_/g, '-');
    if (typeof parsed[option] !== 'boolean') continue;
    // Typed as yargs takes it: --dry-run or --dryRun, --no-dry-run or --no-dryRun, with =value or not.
    if (typed(argv, option)) continue;
    const camel = camelCase(option);
    const text = raw.trim().toLowerCase();
    if (!ENV_TRUE.has(text) && !ENV_FALSE.has(text)) {
      throw new UsageError(`invalid ${name} '${raw}': expected true or false (or 1/0, yes/no)`);
    }
    const value = ENV_TRUE.has(text);
    parsed[option] = value;
    parsed[camel] = value;
  }
}

/** Whether an option was typed on the command line, as yargs takes it: `--name`, `--no-name`, `--name=...`, or in camelCase. */
function typed(argv: readonly string[], option: string): boolean {
  const camel = camelCase(option);
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) =>
    [option, camel].some((name) => arg === `--${name}` || arg === `--no-${name}` || arg.startsWith(`--${name}=`)),
  );
}

/**
 * A range typed on the command line wins over the other form set in the environment, as every
 * option does: `--from/--to` over DOCPIPE_LAST, `--last` over DOCPIPE_FROM and DOCPIPE_TO.
 */
export function typedRangeWins(parsed: Record<string, unknown>, argv: readonly string[]): void {
  const dates = typed(argv, 'from') || typed(argv, 'to');
  if (dates && !typed(argv, 'last')) delete parsed.last;
  if (typed(argv, 'last') && !dates) {
    delete parsed.from;
    delete parsed.to;
  }
}

/** The options that take several values (`--project a --project b`); any other given twice is its last value. */
const REPEATABLE = new Set(['project', 'fault']);

/**
 * An option typed twice keeps its last value, as a numeric option (and DOCPIPE_ beside the
 * command line) already did: yargs would hand the command an array, which a format took
 * for none it knew (`dump --format parquet --format parquet` wrote CSV) and a path check
 * crashed on.
 */
export function lastValues(parsed: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(parsed)) {
    if (key === '_' || key === '$0' || key === '--' || !Array.isArray(value)) continue;
    if (!REPEATABLE.has(kebabCase(key))) parsed[key] = value.at(-1);
  }
}

/**
 * The yes/no options typed with a value (`--dry-run=yes`, `--refresh=0`), read by the rule
 * DOCPIPE_ variables follow: yargs takes only `=true` for yes and anything else silently for
 * no, so `--dry-run=yes` would submit every prompt. A value that is neither is refused.
 */
export function readTypedFlags(parsed: Record<string, unknown>, argv: readonly string[]): void {
  const end = argv.indexOf('--'); // what follows is not an option
  const options = end === -1 ? argv : argv.slice(0, end);
  // Each word's option, in kebab case (undefined for a word that is none).
  const names = options.map((arg) => {
    const name = /^--(?:no-)?([^=]+)/s.exec(arg)?.[1];
    return name === undefined ? undefined : kebabCase(name);
  });
  for (const [i, arg] of options.entries()) {
    const match = /^--(no-)?([^=]+)=(.*)$/s.exec(arg);
    if (!match) continue;
    const typed = match[2]!;
    const option = names[i]!;
    if (typeof parsed[option] !== 'boolean') continue;
    // Typed again later (`--dry-run=no --dry-run`): the last one counts, as yargs read it.
    if (names.slice(i + 1).includes(option)) continue;
    const text = match[3]!.trim().toLowerCase();
    if (!ENV_TRUE.has(text) && (!ENV_FALSE.has(text) || text === '')) {
      throw new UsageError(`invalid --${match[1] ?? ''}${typed} '${match[3]!}': expected true or false (or 1/0, yes/no)`);
    }
    const value = ENV_TRUE.has(text) !== (match[1] !== undefined);
    parsed[option] = value;
    parsed[camelCase(option)] = value;
  }
}

/** yargs' failure text as one line; "Did you mean X?" also says what was typed. */
function usageMessage(message: string, argv: readonly string[]): string {
  const line = message.replace(/\s*\n\s*/g, ' ').trim();
  const suggestion = /^Did you mean (.+)\?$/.exec(line);
  if (!suggestion) return line;
  const typed = typedCommand(argv, process.env);
  return `unknown command${typed ? ` '${typed}'` : ''}: did you mean '${suggestion[1] ?? ''}'?`;
}

/** The options that take no value on a command line of the commands that take SQL (their yes/no options too). */
const SQL_COMMAND_FLAGS: ReadonlySet<string> = new Set([...FLAG_OPTIONS, '--write', '--dry-run', '--dryRun', '--resubmit-unknown', '--resubmitUnknown']);

/**
 * Pure: the SQL argument of `query` and `jobs from-query` may begin with a comment (`-- top
 * pages`, `--top`), which yargs would read as an option. That argument (one that begins with
 * `--` and has a space or a line break before any `=`, so that it can be no option), if it is
 * no option's value, goes after a `--`, where nothing is read as an option; the commands read
 * it there (sqlArgument). Any other such word is left for yargs to refuse.
 */
export function sqlCommentsLast(argv: readonly string[]): string[] {
  // The command's first word: the first that is neither an option nor an option's value.
  let first = -1;
  for (let i = 0; i < argv.length && first === -1; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (!arg.startsWith('-')) first = i;
    else if (takesValue(arg, SQL_COMMAND_FLAGS) && !(argv[i + 1] ?? '').startsWith('-')) i++;
  }
  const words = argv[first] === 'query' ? 1 : argv[first] === 'jobs' && argv[first + 1] === 'from-query' ? 2 : 0;
  if (words === 0) return [...argv];
  const end = argv.indexOf('--') === -1 ? argv.length : argv.indexOf('--');
  let at = -1;
  for (let i = first + words; i < end && at === -1; i++) {
    if (/^--[^=]*\s/.test(argv[i]!) && !takesValue(argv[i - 1]!, SQL_COMMAND_FLAGS)) at = i;
  }
  if (at === -1) return [...argv];
  // Right after the `--` (one typed already, or one added at the end).
  const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
  const dashes = rest.indexOf('--');
  return dashes === -1 ? [...rest, '--', argv[at]!] : [...rest.slice(0, dashes + 1), argv[at]!, ...rest.slice(dashes + 1)];
}

/** Signals that stop a run like Ctrl-C: finish the current step, save, exit 130. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Whether the key was typed on the command line, where other users see it in `ps`. */
function keyOnCommandLine(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === '--api-key' || arg.startsWith('--api-key=') || arg === '--apiKey' || arg.startsWith('--apiKey='));
}

/** Whether the command line asks for help (yargs then renders it, and runs no command). */
function asksForHelp(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === '--help' || arg === '-h');
}

/**
 * yargs renders a command's help as the command starts, in case the command later asks for it:
 * 10-20 ms of measuring strings before an export's first request. A docpipe command never
 * shows help once it runs (its failures are one line), so that rendering is skipped. The hook
 * is yargs' internal one; without it (another yargs), nothing changes.
 */
function skipHelpCache(parser: object): void {
  type Usage = { cacheHelpMessage?: unknown };
  const internal = (parser as { getInternalMethods?: () => { getUsageInstance?: () => Usage } }).getInternalMethods?.();
  const usage = internal?.getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

/** Runs the CLI; resolves to the exit code (it never calls process.exit). */
export async function runCli(argv: string[], options: RunCliOptions = {}): Promise<ExitCode> {
  let io = options.io;
  let controller: AbortController | undefined;
  let onSignal: ((signal: NodeJS.Signals) => void) | undefined;
  if (!io) {
    controller = new AbortController();
    let interrupts = 0;
    onSignal = (signal) => {
      interrupts++;
      if (interrupts > 1) {
        // At once: by the signal's own action, as kill does. process.exit would wait for a
        // thread of the process that is busy (a DuckDB statement, a read of a pipe no one writes
        // to). As a container's PID 1 (no --init), a signal's default action does nothing: exit.
        if (process.pid === 1) process.exit(EXIT.interrupted);
        for (const stop of STOP_SIGNALS) process.removeListener(stop, onSignal!);
        process.kill(process.pid, signal);
        return;
      }
      const name = signal === 'SIGINT' ? 'Ctrl-C' : signal;
      const detail = 'finishing the current step and saving what is done (Ctrl-C again to quit at once)';
      if (requestedLogFormat(argv, process.env, Boolean(process.stderr.isTTY)) === 'json') {
        createLogger({ format: 'json' }).warn('stopping', { signal, detail });
      } else {
        process.stderr.write(`\nstopping (${name}): ${detail}\n`);
      }
      controller?.abort(new InterruptedError(`interrupted (${name})`));
    };
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
    options.releaseSignals?.();
    for (const signal of options.signals ?? []) onSignal(signal);
    io = processIo(controller.signal);
  }
  // Every command but the sandbox opens a database: DuckDB starts on its own thread while
  // the command line is parsed.
  if (argv.length > 0 && argv[0] !== 'sandbox' && !asksForHelp(argv) && !argv.some((arg) => arg === '--version' || arg === '-V')) {
    startEngine().catch(() => undefined);
  }
  const ctx: CliContext = { io, exitCode: EXIT.ok, ...(options.http ? { http: options.http } : {}) };
  const verbose = argv.includes('--verbose');
  // A bare `docpipe` shows the help.
  const args = argv.length === 0 ? ['--help'] : sqlCommentsLast(argv);
  const parse = async (): Promise<ExitCode> => {
    const parser = buildParser(ctx, args).middleware((parsed) => lastValues(parsed), true).middleware((parsed) => {
      readEnvFlags(parsed, argv, process.env);
      readTypedFlags(parsed, argv);
      checkNumberValuesGiven(argv);
      typedRangeWins(parsed, argv);
      if (keyOnCommandLine(argv)) {
        loggerFor(ctx.io, parsed as unknown as GlobalArgs).warn('api key on the command line', {
          detail: 'other users can see --api-key in the process list: set DOCPIPE_API_KEY or use --api-key-file',
        });
      }
    });
    if (!asksForHelp(args)) skipHelpCache(parser);
    // With a callback yargs neither prints nor exits: help and version go to our stdout.
    let shown = '';
    await parser.parseAsync(args, {}, (_error, _parsed, output) => {
      shown = output;
    });
    if (shown) ctx.io.stdout(`${shown}\n`);
    return ctx.exitCode;
  };
  const ignored: Record<string, string> = {};
  try {
    try {
      return await parse();
    } catch (error) {
      // A DOCPIPE_ variable of an option this command does not have (DOCPIPE_WAIT, set for
      // a sync, in a cron environment a status check shares) is not a mistake on this
      // command line: the command runs without it.
      const strays = error instanceof UsageError ? envOnlyUnknowns(error.message, argv) : [];
      if (strays.length === 0) throw error;
      for (const name of strays) {
        ignored[name] = process.env[name] ?? '';
        delete process.env[name];
      }
      return await parse();
    }
  } catch (error) {
    // yargs and the option checks quote what was typed: a key typed in the wrong place
    // (a stray word, a date option's value) would be echoed.
    const text = withoutKeys(describeError(error, verbose), argv);
    const code = exitCodeOf(error);
    tellStderr(io, requestedLogFormat(argv, process.env, io.isTTY), { level: 'error', event: 'failed', text, textField: 'error', fields: { exit_code: code } });
    return code;
  } finally {
    Object.assign(process.env, ignored);
    if (onSignal) for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
}

/**
 * Pure over the environment: the DOCPIPE_ variables behind yargs' "Unknown argument(s): a,
 * b" that were not typed (an unknown option typed on the command line stays an error, and
 * is then the only one named).
 */
function envOnlyUnknowns(message: string, argv: readonly string[]): string[] {
  const match = /^Unknown arguments?: (.+)$/.exec(message);
  if (!match) return [];
  const squash = (name: string): string => name.replace(/[-_]/g, '').toLowerCase();
  const typed = new Set(argv.filter((a) => a.startsWith('--')).map((a) => squash(a.slice(2).split('=')[0] ?? '')));
  const vars = Object.keys(process.env).filter((k) => k.startsWith('DOCPIPE_'));
  const found: string[] = [];
  for (const name of match[1]!.split(',').map((n) => n.trim())) {
    if (typed.has(squash(name))) continue;
    const variable = vars.find((k) => squash(k.slice('DOCPIPE_'.length)) === squash(name));
    if (variable !== undefined && !found.includes(variable)) found.push(variable);
  }
  return found;
}
