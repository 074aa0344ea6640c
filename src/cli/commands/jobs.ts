import { renameSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../core/errors.js';
import { runStatus } from '../../core/outcome.js';
import { decidePrompt } from '../../jobs/decide-prompt.js';
import { JobLedger, type LedgerRow } from '../../jobs/ledger.js';
import { readPromptFile } from '../../jobs/prompt-files.js';
import { promptStart, runBatch, type BatchEvent, type BatchSummary } from '../../jobs/run-batch.js';
import { Store } from '../../load/store.js';
import { finishRun, newRunId, startRun } from '../../load/runs.js';
import { requireProjects, resolveApiKey } from '../api-key.js';
import { defineCommand, type CliContext } from '../context.js';
import { loggerFor, type GlobalArgs } from '../io.js';
import { OUTPUT_FORMATS, renderCsv, renderJsonLines, renderRows, type OutputFormat } from '../output/table.js';
import { createSession, createWorkspace, readerOptions } from '../session.js';

const RESULT_COLUMNS = ['prompt_key', 'prompt', 'status', 'job_id', 'pr_link', 'error'] as const;

/** `jobs list` as a table fits a terminal this wide (the submitted time and the rest are in CSV and JSON). */
const LIST_TABLE_WIDTH = 100;

function resultRecord(row: LedgerRow): Record<string, unknown> {
  return { prompt_key: row.promptKey, prompt: row.prompt, status: row.status, job_id: row.jobId, pr_link: row.prLink, error: row.error };
}

/** Every column of the ledger, for `jobs list --format csv|json`. */
const LEDGER_COLUMNS = [
  'project_id', 'prompt_key', 'prompt', 'status', 'job_id', 'model', 'repository', 'ref', 'pr_link', 'created_at',
  'archived_at', 'submitted_at', 'finished_at', 'error', 'flags', 'source_file', 'attempts', 'polls',
] as const;

function ledgerRecord(r: LedgerRow): Record<(typeof LEDGER_COLUMNS)[number], unknown> {
  return {
    project_id: r.projectId, prompt_key: r.promptKey, prompt: r.prompt, status: r.status, job_id: r.jobId, model: r.model,
    repository: r.repository, ref: r.ref, pr_link: r.prLink, created_at: r.createdAt, archived_at: r.archivedAt,
    submitted_at: r.submittedAt, finished_at: r.finishedAt, error: r.error, flags: r.flags, source_file: r.sourceFile,
    attempts: r.attempts, polls: r.polls,
  };
}

function singleProject(projects: string[]): string {
  if (projects.length > 1) throw new UsageError(`jobs take one --project, got ${projects.length}: ${projects.join(', ')}`);
  return projects[0] as string;
}

function positive(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`invalid --${name} '${String(value)}': expected a ${integer ? 'whole ' : ''}number > 0`);
  }
  return value;
}

function writeResults(path: string, rows: readonly LedgerRow[]): void {
  const ext = extname(path).toLowerCase();
  const records = rows.map(resultRecord);
  const text = ext === '.csv' ? renderCsv(RESULT_COLUMNS, records) : renderJsonLines(records);
  // Write then rename, so a reader never sees half a file.
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

function submitBuilder(yargs: Argv) {
  return yargs
    .positional('file', { type: 'string', demandOption: true, describe: 'prompts: .txt, .jsonl or .csv' })
    .option('concurrency', { type: 'number', default: 3, describe: 'jobs in flight at once' })
    .option('poll-interval', { type: 'number', default: 5, describe: 'first poll interval in seconds (backs off to 60)' })
    .option('timeout', { type: 'number', default: 3600, describe: 'seconds to follow a job before timed_out' })
    .option('jobs-per-hour', { type: 'number', default: 100, describe: 'job submissions per hour (the API limit per project)' })
    .option('dry-run', { type: 'boolean', default: false, describe: 'check the file and list what would be submitted' })
    .option('resubmit-unknown', { type: 'boolean', default: false, describe: 'submit again prompts whose outcome is unknown' })
    .option('results', { type: 'string', describe: 'write outcomes to this .jsonl or .csv file' });
}

async function submitHandler(ctx: CliContext, args: Awaited<ReturnType<typeof submitBuilder>['argv']> & GlobalArgs): Promise<void> {
  const concurrency = positive('concurrency', args.concurrency, true);
  const pollInterval = positive('poll-interval', args['poll-interval'], false);
  const timeout = positive('timeout', args.timeout, false);
  const jobsPerHour = positive('jobs-per-hour', args['jobs-per-hour'], false);
  if (args.results && !['.jsonl', '.csv'].includes(extname(args.results).toLowerCase())) {
    throw new UsageError(`invalid --results '${args.results}': expected a .jsonl or .csv file`);
  }
  const projectId = singleProject(requireProjects(args));
  const file = await readPromptFile(args.file);
  const logger = loggerFor(ctx.io, args);
  for (const warning of file.warnings) logger.warn('prompt file', { warning });
  // Check the key before touching the database, so a bad setup changes nothing.
  const apiKey = args['dry-run'] ? '' : resolveApiKey(args);

  const runId = newRunId(ctx.io.clock.now());
  const workspace = createWorkspace(args, runId, logger);
  const { store } = workspace;
  const ledger = new JobLedger(store, runId);
  if (args['dry-run']) {
    // One read of the ledger, and the runner's own decision for each prompt.
    const rows = await ledger.byKey(projectId);
    const plan = file.entries.map((entry) => {
      const decision = decidePrompt(entry, rows.get(entry.key), { resubmitUnknown: args['resubmit-unknown'] });
      if (decision.warning) logger.warn('prompt id reused', { key: entry.key, warning: decision.warning });
      return { line: entry.line, key: entry.key, action: decision.action, status: decision.status, reason: decision.reason, prompt: promptStart(entry.prompt, 40) };
    });
    ctx.io.stdout(renderRows('table', ['line', 'key', 'action', 'status', 'reason', 'prompt'], plan));
    const toSubmit = plan.filter((p) => p.action === 'submit' || p.action === 'resubmit').length;
    ctx.io.stdout(`dry run: ${file.entries.length} prompts in ${args.file}, ${toSubmit} would be submitted; no request made\n`);
    return;
  }

  await store.write((tx) => startRun(tx, runId, `jobs submit ${args.file}`, ctx.io.clock.now()));
  const session = createSession({
    workspace,
    apiKey,
    baseUrl: args.baseUrl,
    scope: `agent:${projectId}`,
    perHour: jobsPerHour,
    maxRequests: args.maxRequests,
    // A batch may wait for its hourly job budget (Ctrl-C stops it and a re-run resumes).
    maxWaitMs: Number.POSITIVE_INFINITY,
    // Polling is not rate limited by the API; only submissions use the budget.
    budgeted: (method) => method === 'POST',
    clock: ctx.io.clock,
    // Budget waits and retries are logged like an export's.
    logger,
    ...(ctx.http ? { http: ctx.http } : {}),
  });
  const onEvent = (event: BatchEvent): void => {
    const { kind, ...fields } = event;
    if (kind === 'warning') return logger.warn('job warning', fields);
    if (kind === 'status' && event.status === 'active') return logger.debug('job polled', fields);
    logger.info(`job ${kind}`, fields);
  };
  const summary: BatchSummary = await runBatch({
    client: session.client,
    ledger,
    clock: ctx.io.clock,
    projectId,
    sourceFile: args.file,
    entries: file.entries,
    concurrency,
    pollIntervalMs: pollInterval * 1000,
    timeoutMs: timeout * 1000,
    resubmitUnknown: args['resubmit-unknown'],
    ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
    onEvent,
  });
  if (args.results) writeResults(args.results, summary.rows);
  // A job's result: its pull request, else why it failed or stopped (the API's reason where it gives one).
  const table = summary.rows.map((r) => ({ prompt: promptStart(r.prompt), status: r.status, result: r.prLink ?? (r.error ? `(${promptStart(r.error, 60)})` : '') }));
  const counts = Object.entries(summary.counts).map(([k, v]) => `${v} ${k}`).join(', ');
  const stopped =
    summary.stopped === 'budget'
      ? `\nstopped submitting on the request budget (${summary.stopMessage ?? ''}); run again to continue`
      : summary.stopped === 'interrupted'
        ? '\ninterrupted; everything so far is saved, run again to resume'
        : summary.stopped === 'fatal'
          ? `\nstopped: ${summary.stopMessage ?? ''}; prompts not yet submitted stay pending, run again to continue`
          : '';
  if (logger.format === 'json') {
    ctx.io.stdout(JSON.stringify({ event: 'summary', command: 'jobs submit', runId, total: summary.total, submitted: summary.submitted, counts: summary.counts, stopped: summary.stopped, message: summary.stopMessage, jobs: summary.rows.map(resultRecord) }) + '\n');
  } else {
    ctx.io.stdout(renderRows('table', ['prompt', 'status', 'result'], table));
    ctx.io.stdout(`${summary.total} prompts, ${summary.submitted} submitted this run: ${counts}${stopped}\n`);
  }
  // Also moves the rest of the request journal into request_log.
  await store.write((tx) =>
    finishRun(tx, runId, { status: runStatus(summary.stopped, summary.exitCode), exitCode: summary.exitCode, summary: { total: summary.total, submitted: summary.submitted, counts: summary.counts } }, ctx.io.clock.now()),
  );
  ctx.exitCode = summary.exitCode;
}

function listBuilder(yargs: Argv) {
  return yargs
    .option('status', { type: 'string', describe: 'only jobs with this status' })
    .option('format', { choices: OUTPUT_FORMATS, default: 'table' as OutputFormat });
}

async function listHandler(ctx: CliContext, args: Awaited<ReturnType<typeof listBuilder>['argv']> & GlobalArgs): Promise<void> {
  const store = new Store(args.db, readerOptions(ctx, args));
  const projectFilter = args.project?.[0];
  const rows = await new JobLedger(store, '').list({
    ...(args.status ? { status: args.status } : {}),
    ...(projectFilter ? { projectId: projectFilter } : {}),
  });
  if (args.format !== 'table') {
    const records = rows.map(ledgerRecord);
    ctx.io.stdout(renderRows(args.format, LEDGER_COLUMNS, records));
    return;
  }
  // The table is for reading on a terminal: what was asked, where it stands, what came of it.
  // Keys and links are for copying, so the prompt gives up its width first.
  const records = rows.map((r) => ({
    key: r.promptKey,
    status: r.status,
    prompt: r.prompt,
    result: r.prLink ?? r.error ?? (r.flags ? `(${r.flags})` : null),
  }));
  const columns = ['key', 'status', 'prompt', 'result'];
  const keep = Object.fromEntries(['key', 'status'].map((c) => [c, Math.max(c.length, ...records.map((r) => String(r[c as 'key']).length))]));
  ctx.io.stdout(renderRows('table', columns, records, { lineWidth: LIST_TABLE_WIDTH, shrinkFirst: ['prompt'], minWidths: { ...keep, prompt: 24 } }));
}

export function jobsCommand(ctx: CliContext): CommandModule {
  const submit = defineCommand({
    command: 'submit <file>',
    describe: 'submit every prompt of a file once and follow each job to its end',
    builder: submitBuilder,
    handler: (args) => submitHandler(ctx, args),
  });
  const list = defineCommand({
    command: 'list',
    describe: 'show the job ledger',
    builder: listBuilder,
    handler: (args) => listHandler(ctx, args),
  });
  return {
    command: 'jobs <command>',
    describe: 'submit a batch of agent jobs, or list the ledger',
    builder: (yargs) => yargs.command(submit).command(list).demandCommand(1, 'name a jobs command: submit or list'),
    handler: () => undefined,
  };
}
