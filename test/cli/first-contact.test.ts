/**
 * Issue 8 (part A), end to end through the CLI: help and version, the sandbox's key and
 * limits, a mistyped --db, the key, an API that does not answer, and validation that names
 * what was typed. Real sandbox over HTTP on 127.0.0.1, real DuckDB files, fake clock only.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { runCli, type RunCliOptions } from '../../src/cli/main.js';
import { Database } from '../../src/load/database.js';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { logLines, startHarness, summaryOf, type CliResult, type Harness, asText } from './harness.js';

const NOW = '2026-03-10T06:00:00Z';
const DAYS = ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-08'];

/** Runs the CLI with exactly these arguments (no harness defaults). */
async function bare(argv: string[], http?: RunCliOptions['http']): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTTY: false, clock: new ManualClock(Date.parse(NOW)) },
    ...(http ? { http } : {}),
  });
  return { code, stdout, stderr };
}

async function rows<T>(db: string, sql: string): Promise<T[]> {
  const handle = await Database.open(db, { readOnly: true });
  try {
    return (await handle.all(sql)) as T[];
  } finally {
    await handle.close();
  }
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('first contact: help, version, did you mean', () => {
  const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

  it('prints the version with --version and -V, and the help with -h and with no arguments', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await bare([flag]);
      expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
    const short = await bare(['-h']);
    const none = await bare([]);
    expect(short.code).toBe(0);
    expect(none).toEqual(short);
    for (const command of ['export', 'sync', 'query', 'jobs', 'sandbox', 'doctor']) expect(none.stdout).toContain(`docpipe ${command}`);
    // The environment variables are named.
    for (const name of ['DOCPIPE_API_KEY', 'DOCPIPE_BASE_URL', 'DOCPIPE_PROJECT', 'DOCPIPE_DB', 'DOCPIPE_MAX_REQUESTS']) {
      expect(none.stdout).toContain(name);
    }
  });

  it.each([
    [['export', '--help']],
    [['sync', '--help']],
    [['query', '--help']],
    [['jobs', 'submit', '--help']],
    [['jobs', 'list', '--help']],
    [['sandbox', '--help']],
    [['doctor', '--help']],
    [['report', '--help']],
    [['dump', '--help']],
    [['jobs', 'from-query', '--help']],
    [['jobs', 'message', '--help']],
  ])('%j has examples, and lists its own options before the global ones', async (argv) => {
    const { code, stdout } = await bare(argv);
    expect(code).toBe(0);
    const own = stdout.indexOf('\nOptions:');
    const global = stdout.indexOf('\nGlobal options:');
    expect(own).toBeGreaterThan(-1);
    expect(global).toBeGreaterThan(own);
    expect(stdout).toContain('\nExamples:\n');
    expect(stdout).toContain(`docpipe ${argv.slice(0, -1).join(' ')}`);
    expect(stdout).toContain('[env DOCPIPE_API_KEY]');
    // The section of own options holds no global option.
    expect(stdout.slice(own, global)).not.toMatch(/--base-url|--db\b/);
  });

  it('describes the prompt file formats in jobs submit --help, and the pipeline file in sync --help', async () => {
    const jobs = (await bare(['jobs', 'submit', '--help'])).stdout;
    for (const text of ['.txt', '.jsonl', '.csv', '"prompt"', '"id"', '#']) expect(jobs).toContain(text);
    const sync = (await bare(['sync', '--help'])).stdout;
    for (const field of ['projects', 'metrics', 'start', 'window', 'windows', 'lookbackDays', 'requestsPerHour', 'maxRequestsPerRun']) {
      expect(sync).toContain(field);
    }
  });

  it('suggests the command meant by a typo, naming what was typed', async () => {
    const top = await bare(['exprot', 'visitors']);
    expect(top.code).toBe(2);
    expect(asText(top.stderr)).toBe("docpipe: unknown command 'exprot': did you mean 'export'?\n");
    const sub = await bare(['jobs', 'sumbit', 'file.txt']);
    expect(sub.code).toBe(2);
    expect(asText(sub.stderr)).toBe("docpipe: unknown command 'sumbit': did you mean 'submit'?\n");
    // An option's value before the typo is not what was typed: the key is never echoed.
    const keyed = await bare(['--api-key', 'mint_SECRETKEY123', '--db', '/tmp/x.duckdb', 'synk']);
    expect(keyed.code).toBe(2);
    expect(asText(keyed.stderr)).toBe("docpipe: unknown command 'synk': did you mean 'sync'?\n");
    const verbose = await bare(['--verbose', '--api-key', 'mint_SECRETKEY123', 'synk']);
    expect(asText(verbose.stderr)).toContain("unknown command 'synk'");
    expect(asText(verbose.stderr)).not.toContain('SECRET');
    expect((await bare(['--api-key=mint_SECRETKEY123', 'synk'])).stderr).not.toContain('SECRET');
    // A command's yes/no flag before --api-key does not make the key the typo.
    for (const flag of ['--refresh', '--wait', '--dry-run']) {
      const flagged = await bare([flag, '--api-key', 'mint_SECRETKEY123', 'exprt', 'visitors']);
      expect(flagged.code).toBe(2);
      expect(asText(flagged.stderr)).toBe("docpipe: unknown command 'exprt': did you mean 'export'?\n");
    }
  });

  it('a key typed where another value goes (a stray word, a date, a choice) is not echoed by the error naming it', async () => {
    const key = 'mint_ENVKEY_555';
    const file = join(mkdtempSync(join(tmpdir(), 'docpipe-key-')), 'key');
    writeFileSync(file, `${key}_FILE\n`);
    const saved = process.env.DOCPIPE_API_KEY;
    // With a trailing newline, as a secret file often has: docpipe trims it, and so blanks it out.
    process.env.DOCPIPE_API_KEY = `${key}\n`;
    try {
      const cases: [string[], RegExp][] = [
        [['export', 'visitors', key, '--from', '2026-11-01', '--to', '2026-11-02', '--project', 'docs'], /Unknown argument: \[API key\]/],
        [['export', 'visitors', '--from', key, '--to', '2026-11-02', '--project', 'docs'], /invalid --from '\[API key\]'/],
        [['export', 'visitors', '--from', '2026-11-01', '--to', '2026-11-02', '--window', key, '--project', 'docs'], /\[API key\]/],
        // The key given as --api-key, and the key file's, the same way.
        [['export', 'visitors', '--api-key', `${key}_TYPED`, '--from', `${key}_TYPED`, '--to', '2026-11-02', '--project', 'docs'], /invalid --from '\[API key\]'/],
        [['export', 'visitors', '--api-key-file', file, '--from', `${key}_FILE`, '--to', '2026-11-02', '--project', 'docs'], /invalid --from '\[API key\]'/],
      ];
      for (const [argv, said] of cases) {
        const result = await bare(argv);
        expect(result.code, argv.join(' ')).toBe(2);
        expect(asText(result.stderr)).toMatch(said);
        expect(asText(result.stderr)).not.toContain('ENVKEY');
      }
    } finally {
      if (saved === undefined) delete process.env.DOCPIPE_API_KEY;
      else process.env.DOCPIPE_API_KEY = saved;
    }
  });
});

describe('the sandbox and its key', () => {
  it('docpipe sandbox prints the key it accepts, enforces the limits by default, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/docpipe.js', 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout });
    const first: string[] = [];
    await new Promise<void>((resolve) => {
      lines.on('line', (line) => {
        first.push(line);
        if (first.length === 2) resolve();
      });
    });
    expect(first[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first[1]).toBe(`api key: ${SANDBOX_API_KEY}`);
    // The key works, and the README gives the same one.
    const res = await fetch(`${first[0]}/v2/agent/docs/job/nope`, { headers: { authorization: `Bearer ${SANDBOX_API_KEY}` } });
    expect(res.status).toBe(404);
    expect(readFileSync('README.md', 'utf8')).toContain(SANDBOX_API_KEY);
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(stderr).toMatch(/rate limits on: 100 analytics requests an hour/);
    // stderr is no terminal: JSON log lines only, the stop notice included.
    const logged = stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.map((l) => l.event)).toEqual(['sandbox listening', 'stopping']);
    expect(logged[0]).toMatchObject({ url: first[0], try: expect.stringContaining(`DOCPIPE_BASE_URL=${first[0]}`) });
  });

  it('--no-rate-limit lifts the limits', async () => {
    const child = spawn(process.execPath, ['bin/docpipe.js', 'sandbox', '--port', '0', '--no-rate-limit'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exit).toBe(0);
    expect(stderr).toMatch(/rate limits off/);
  });
});

describe('stopping on the budget, and an API that enforces its limits', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('says how long until the next slot and how to change the budget', async () => {
    h = await startHarness(NOW, { site: { paths: 20 } });
    const hourly = await h.run([...DAYS, '--requests-per-hour', '2']);
    expect(hourly.code).toBe(75);
    const message = String(summaryOf(hourly).stopMessage);
    expect(message).toBe(
      'hourly request budget spent (2 per hour); next slot in 3602 s (1 h, at 2026-03-10T07:00Z); ' +
        'run again then, add --wait to sleep until it, or change the budget with --requests-per-hour',
    );
    const text = await h.run([...DAYS, '--max-requests', '1', '--log-format', 'text']);
    expect(text.code).toBe(75);
    expect(text.stdout).toMatch(/\nstopped early: request cap for this run reached \(1 requests\); raise --max-requests to allow more requests in one run; 4 windows left for the next run\n$/);
  });

  it('a 503 with a long Retry-After (maintenance) stops the run with exit 75 in words that say so, not in those of the request budget', async () => {
    h = await startHarness(NOW, { site: { paths: 20 } });
    h.sandbox.addFault({ kind: 'server-error', status: 503, retryAfter: '3600', match: { path: '/visitors' }, times: Infinity });
    const run = await h.run([...DAYS, '--log-format', 'text']);
    expect(run.code).toBe(75);
    const tail = run.stdout.trim().split('\n').at(-1)!;
    expect(tail).toMatch(/^stopped early: GET \/v1\/analytics\/docs\/visitors\?\S+ failed with HTTP 503: .*\(the API asks to retry in 3600 s\); \d+ windows? left for the next run$/);
    expect(tail).not.toMatch(/budget/);
  });

  it("stops with exit 75 on the sandbox's own hourly limit, saying when to retry", async () => {
    h = await startHarness(NOW, { site: { paths: 20 }, rateLimits: { analyticsPerHour: 3 } });
    const result = await h.run(DAYS);
    expect(result.code).toBe(75);
    expect(h.requests('/visitors')).toBe(4); // three answered, the fourth refused with 429
    expect(summaryOf(result)).toMatchObject({ windowsLoaded: 3 });
    expect(String(summaryOf(result).stopMessage)).toMatch(/HTTP 429: Rate limit exceeded \(the API asks to retry in 3600 s\)$/);
  });
});

describe('a mistyped --db', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW);
  });
  afterEach(async () => {
    await h.close();
  });

  it.each([
    [['query', 'SELECT 1']],
    [['query', 'SELECT 1', '--write']],
    [['jobs', 'list']],
    [['doctor']],
    [['doctor', '--fix']],
  ])('%j refuses a database file that does not exist, and creates nothing', async (argv) => {
    const typo = join(h.dir, 'sub', 'typo.duckdb');
    const result = await h.run([...argv, '--db', typo]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr)).toBe(`docpipe: database '${typo}' does not exist (check --db or DOCPIPE_DB)\n`);
    expect(existsSync(join(h.dir, 'sub'))).toBe(false);
  });

  it('a bad value with a line break in it is shown as typed (the break escaped), not with a space for it', async () => {
    const result = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01\n2026', '--to', '2026-03-02']);
    expect(result.code).toBe(2);
    expect(asText(result.stderr).trim()).toMatch(/^docpipe: invalid --from '2026-03-01\\x0a2026'/);
  });

  it('refuses a folder given as --db', async () => {
    const result = await h.run(['query', 'SELECT 1', '--db', h.dir]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr)).toBe(`docpipe: database '${h.dir}' is not a file (check --db or DOCPIPE_DB)\n`);
  });

  it('refuses a --db file that is not a DuckDB database (exit 2), and leaves it as it was', async () => {
    const notes = join(h.dir, 'notes.duckdb');
    writeFileSync(notes, 'not a database\n');
    for (const argv of [['query', 'SELECT 1'], ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02']]) {
      const result = await h.run([...argv, '--db', notes]);
      expect(result.code, argv[0]).toBe(2);
      expect(asText(result.stderr)).toContain(`docpipe: database '${notes}' is not a DuckDB database file (check --db or DOCPIPE_DB)\n`);
    }
    expect(readFileSync(notes, 'utf8')).toBe('not a database\n');
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('refuses a --db data file DuckDB would read as data (.json, .csv, .parquet): a run loaded into nothing and exited 0', async () => {
    for (const [name, content] of [['a.json', '[1,2]\n'], ['a.csv', 'x,y\n1,2\n'], ['a.parquet', 'PAR1']] as const) {
      const file = join(h.dir, name);
      writeFileSync(file, content);
      for (const argv of [['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02'], ['query', 'SELECT 1'], ['status']]) {
        const result = await h.run([...argv, '--db', file]);
        expect(result.code, `${argv[0]} ${name}`).toBe(2);
        expect(asText(result.stderr)).toContain(`docpipe: database '${file}' is not a DuckDB database file (check --db or DOCPIPE_DB)\n`);
      }
      expect(readFileSync(file, 'utf8')).toBe(content);
      expect(existsSync(`${file}.spool`)).toBe(false);
    }
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('refuses --db :memory: for the commands that record what they did (nothing would be kept)', async () => {
    const prompts = join(h.dir, 'p.txt');
    writeFileSync(prompts, 'Fix the intro\n');
    for (const argv of [['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02'], ['jobs', 'submit', prompts, '--project', 'docs']]) {
      const result = await h.run([...argv, '--db', ':memory:']);
      expect(result.code, argv[0]).toBe(2);
      expect(asText(result.stderr)).toContain("docpipe: invalid --db ':memory:': an in-memory database keeps nothing after the run; name a file (e.g. data/docpipe.duckdb)\n");
    }
    expect(h.sandbox.requests).toHaveLength(0);
    // Reading SQL in memory stays possible.
    expect((await h.run(['query', 'SELECT 42 AS n', '--db', ':memory:'])).code).toBe(0);
  });
});

describe('the key', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 20 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('a key in the wrong place (as the project, as a prompt, inside a prompt) is refused (exit 2) without being shown or sent', async () => {
    const secret = 'mint_SECRETSECRETSECRET';
    const shown = (result: { stdout: string; stderr: string }): boolean => `${result.stdout}${result.stderr}`.includes('SECRET');
    const range = ['--from', '2026-03-01', '--to', '2026-03-08'];
    const asProject = await h.run(['export', 'visitors', ...range, '--project', secret]);
    expect(asProject.code).toBe(2);
    expect(asText(asProject.stderr).trim()).toBe("docpipe: invalid --project 'mint_…': it is shaped like an API key (mint_ and a long tail), not a project id; the key goes in DOCPIPE_API_KEY");
    expect(shown(asProject)).toBe(false);
    // `--no-project` is no project named 'false'.
    const noProject = await h.run(['export', 'visitors', ...range, '--no-project']);
    expect(noProject.code).toBe(2);
    expect(asText(noProject.stderr).trim()).toBe("docpipe: invalid --project 'false': expected a project id (pass --project ID)");
    // A key file given as the prompt file: refused in a dry run too, which would print it.
    const keyAsPrompts = join(h.dir, 'key.txt');
    writeFileSync(keyAsPrompts, `${secret}\n`);
    for (const extra of [['--dry-run'], []]) {
      const result = await h.run(['jobs', 'submit', keyAsPrompts, '--project', 'docs', ...extra]);
      expect(result.code, extra.join(' ')).toBe(2);
      expect(asText(result.stderr).trim()).toBe(`docpipe: ${keyAsPrompts}:1: the prompt is shaped like an API key (mint_…); refused, not shown`);
      expect(shown(result)).toBe(false);
    }
    // The key itself inside a prompt's text.
    const leaky = join(h.dir, 'leaky.txt');
    writeFileSync(leaky, `Fix the intro\nDocument the login with ${SANDBOX_API_KEY} as the example\n`);
    const holdsKey = (result: { stdout: string; stderr: string }): boolean => `${result.stdout}${result.stderr}`.includes(SANDBOX_API_KEY);
    // Refused by a dry run too, which would print it, and foretell a run that is not refused.
    for (const extra of [['--dry-run'], []]) {
      const inText = await h.run(['jobs', 'submit', leaky, '--project', 'docs', ...extra]);
      expect(inText.code, extra.join(' ')).toBe(2);
      expect(asText(inText.stderr).trim()).toBe(`docpipe: ${leaky}:2: the prompt holds the API key; not sent`);
      expect(holdsKey(inText)).toBe(false);
    }
    // A dry run given a key it cannot take (twice, or an empty key file) says so, as the run does.
    const keyFile = join(h.dir, 'sandbox-key.txt');
    writeFileSync(keyFile, `${SANDBOX_API_KEY}\n`);
    const emptyKeyFile = join(h.dir, 'empty-key.txt');
    writeFileSync(emptyKeyFile, '');
    for (const [given, error] of [
      [['--api-key', SANDBOX_API_KEY, '--api-key-file', keyFile], '--api-key and --api-key-file are both given: keep one'],
      [['--api-key-file', emptyKeyFile], `--api-key-file '${emptyKeyFile}' is empty`],
    ] as const) {
      for (const extra of [['--dry-run'], []]) {
        const result = await h.run(['jobs', 'submit', leaky, '--project', 'docs', ...given, ...extra]);
        expect(result.code, `${given.join(' ')} ${extra.join(' ')}`).toBe(2);
        expect(asText(result.stderr)).toContain(`docpipe: ${error}`);
        expect(holdsKey(result)).toBe(false);
      }
    }
    expect(h.sandbox.requests).toHaveLength(0);
    // A project id that merely begins with mint_ is a project id.
    const mintDocs = await h.run(['export', 'visitors', ...range, '--project', 'Mint_Docs']);
    expect(mintDocs.code, mintDocs.stderr).toBe(0);
    // The prompts of a query, and follow-up messages, the same.
    for (const extra of [['--dry-run'], []]) {
      const fromQuery = await h.run(['jobs', 'from-query', `SELECT 'Use ${SANDBOX_API_KEY} here' AS p`, '--template', '{p}', '--project', 'docs', ...extra]);
      expect(fromQuery.code, extra.join(' ')).toBe(2);
      expect(asText(fromQuery.stderr).trim()).toBe('docpipe: query:1: the prompt holds the API key; not sent');
      expect(holdsKey(fromQuery)).toBe(false);
      const message = await h.run(['jobs', 'message', 'job_0001', `Try ${SANDBOX_API_KEY} instead`, '--project', 'docs', ...extra]);
      expect(message.code, extra.join(' ')).toBe(2);
      expect(asText(message.stderr).trim()).toBe('docpipe: messages:1: the prompt holds the API key; not sent');
      expect(holdsKey(message)).toBe(false);
    }
    expect(h.requests('/job')).toBe(0);
  });

  it('a rejected key stops the run at once, with the line that says so', async () => {
    const result = await h.run([...DAYS, '--api-key', 'mint_wrong']);
    expect(result.code).toBe(1);
    expect(h.sandbox.requests).toHaveLength(1); // one window tried, not seven
    expect(summaryOf(result)).toMatchObject({ stopped: 'fatal', stopMessage: 'the API rejected the key (HTTP 401): check --api-key' });
    const jobs = join(h.dir, 'p.txt');
    writeFileSync(jobs, 'one\ntwo\nthree\n');
    const submit = await h.run(['jobs', 'submit', jobs, '--project', 'docs', '--concurrency', '1', '--api-key', 'mint_wrong', '--log-format', 'text']);
    expect(submit.code).toBe(1);
    expect(submit.stdout).toMatch(/stopped: the API rejected the key \(HTTP 401\): check --api-key/);
    expect(h.requests('/job', 'POST')).toBe(1);
  });

  it('a missing scope (403) stops the run the same way, with what the server said', async () => {
    h.sandbox.addFault({ kind: 'server-error', status: 403, match: { path: '/visitors' } });
    const result = await h.run(DAYS);
    expect(result.code).toBe(1);
    expect(h.sandbox.requests).toHaveLength(1);
    expect(String(summaryOf(result).stopMessage)).toMatch(/^the API rejected the key \(HTTP 403: .+\): check --api-key-file '.+', its scopes/);
  });

  it('is checked before a budget wait: with the budget spent, a wrong key is still reported', async () => {
    const spend = await h.run([...DAYS, '--requests-per-hour', '2']);
    expect(spend.code).toBe(75);
    const before = h.sandbox.requests.length;
    const wrong = await h.run([...DAYS, '--requests-per-hour', '2', '--api-key', 'mint_wrong']);
    expect(wrong.code).toBe(1);
    expect(summaryOf(wrong).stopMessage).toBe('the API rejected the key (HTTP 401): check --api-key');
    // One request, the key check; no analytics request.
    const made = h.sandbox.requests.slice(before);
    expect(made.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['GET /v2/agent/docs/job/docpipe-key-check 401']);
    // The right key: checked once, then the budget stops the run as before.
    const right = await h.run([...DAYS, '--requests-per-hour', '2']);
    expect(right.code).toBe(75);
    expect(h.sandbox.requests.slice(before + 1).map((r) => `${r.path} ${r.status}`)).toEqual(['/v2/agent/docs/job/docpipe-key-check 404']);
    // The checks are logged, outside the analytics budget.
    const log = await rows<{ scope: string; n: bigint }>(h.db, "SELECT scope, count(*) AS n FROM request_log WHERE path LIKE '%key-check%' GROUP BY scope");
    expect(log).toEqual([{ scope: `analytics:unbudgeted@${h.sandbox.url}`, n: 2n }]);
  });

  it('a key that cannot go in a header is exit 2 before any request, without showing it', async () => {
    const key = 'mint_secret\u0007part';
    const result = await h.run([...DAYS, '--api-key', key]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr)).toMatch(/docpipe: the API key contains a character that cannot be sent in an HTTP header \(U\+0007 at position 12\): check --api-key\n$/);
    expect(asText(result.stderr)).not.toContain('secret');
    const file = join(h.dir, 'key');
    writeFileSync(file, 'mint_two words\n');
    const fromFile = await h.run([...DAYS, '--api-key-file', file], { withKey: false });
    expect(fromFile.code).toBe(2);
    expect(asText(fromFile.stderr)).toMatch(/U\+0020 at position 9\): check --api-key-file '.*key'\n$/);
    expect(h.sandbox.requests).toHaveLength(0);
    expect(existsSync(h.db)).toBe(false);
  });

  it('--api-key on the command line warns that it shows in the process list', async () => {
    const flag = await h.run([...DAYS, '--api-key', SANDBOX_API_KEY]);
    expect(flag.code).toBe(0);
    const warning = logLines(flag).find((l) => l.event === 'api key on the command line');
    expect(warning).toMatchObject({ level: 'warn', detail: expect.stringMatching(/process list: set DOCPIPE_API_KEY/) });
    expect(asText(flag.stderr)).not.toContain(SANDBOX_API_KEY);
    const file = await h.run(DAYS);
    expect(logLines(file).some((l) => l.event === 'api key on the command line')).toBe(false);
  });
});

describe('an API that does not answer', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 20 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('connection refused ends an export with exit 1 and "cannot connect", after one request\'s retries', async () => {
    const port = await closedPort();
    const result = await h.run([...DAYS, '--base-url', `http://127.0.0.1:${port}`]);
    expect(result.code).toBe(1);
    const summary = summaryOf(result);
    // Five attempts (the first and four retries), none of them a request: no server saw one.
    expect(summary).toMatchObject({ stopped: 'fatal', windowsFailed: 1, requests: 0, retries: 4 });
    expect(summary.stopMessage).toBe(`cannot connect to http://127.0.0.1:${port} (ECONNREFUSED): check --base-url (DOCPIPE_BASE_URL) and the network`);
    // Every retry was on the terminal.
    expect(logLines(result).filter((l) => l.event === 'retrying request')).toHaveLength(4);
    // Logged, but no server saw them: they leave the hourly budget alone.
    const log = await rows<{ scope: string; status: number; n: bigint }>(h.db, 'SELECT scope, status, count(*) AS n FROM request_log GROUP BY ALL');
    expect(log).toEqual([{ scope: `analytics:not-sent@http://127.0.0.1:${port}`, status: 0, n: 5n }]);
  });

  it('a refused connection spends none of the budget: its retries go on under a budget of 2 an hour', async () => {
    const port = await closedPort();
    const result = await h.run([...DAYS, '--base-url', `http://127.0.0.1:${port}`, '--requests-per-hour', '2']);
    expect(result.code).toBe(1);
    // Counted against the hour, the third attempt would have found the budget spent and stopped the run on it.
    expect(summaryOf(result)).toMatchObject({ stopped: 'fatal', requests: 0, retries: 4, stopMessage: expect.stringMatching(/^cannot connect to /) });
  });

  it('is reported as unreachable, not as a failing API, however many retries the breaker sees', async () => {
    const port = await closedPort();
    // Ten attempts in a row with no connection: the breaker (8 in a row) must not stop it with 75.
    const result = await bare(
      [...DAYS, '--base-url', `http://127.0.0.1:${port}`, '--api-key-file', join(h.dir, 'sandbox.key'), '--db', h.db, '--log-format', 'json'],
      { retries: 9, minBackoffMs: 1, maxBackoffMs: 2 },
    );
    expect(result.code).toBe(1);
    expect(summaryOf(result)).toMatchObject({ requests: 0, retries: 9, stopMessage: expect.stringMatching(/^cannot connect to /) });
  });

  it('an unresolvable host ends the run the same way', async () => {
    const result = await h.run([...DAYS, '--base-url', 'https://docpipe-test.invalid']);
    expect(result.code).toBe(1);
    expect(String(summaryOf(result).stopMessage)).toMatch(/^cannot connect to https:\/\/docpipe-test\.invalid \((ENOTFOUND|EAI_AGAIN)\)/);
  });

  it('job submission says it cannot connect, not that the budget ran out, and keeps the prompts pending', async () => {
    const port = await closedPort();
    const file = join(h.dir, 'p.txt');
    writeFileSync(file, 'one\ntwo\n');
    const result = await h.run(['jobs', 'submit', file, '--project', 'docs', '--concurrency', '1', '--base-url', `http://127.0.0.1:${port}`, '--log-format', 'text']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`stopped: cannot connect to http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(result.stdout).not.toMatch(/budget/);
    const ledger = await rows<{ status: string }>(h.db, 'SELECT status FROM agent_jobs');
    expect(ledger.map((r) => r.status)).toEqual(['pending']);
  });
});

describe('validation that names what was typed', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(NOW, { site: { paths: 20 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it.each([
    [[...DAYS, '--max-requests', 'abc'], "docpipe: invalid --max-requests 'abc': expected a whole number >= 0"],
    [[...DAYS, '--requests-per-hour', 'abc'], "docpipe: invalid --requests-per-hour 'abc': expected a whole number >= 1"],
    [[...DAYS, '--requests-per-hour', '1.5'], "docpipe: invalid --requests-per-hour '1.5': expected a whole number >= 1"],
    [[...DAYS, '--lock-timeout', 'soon'], "docpipe: invalid --lock-timeout 'soon': expected a number of seconds >= 0, or a duration such as 90s, 45m or 2h"],
    // Read as typed, not as yargs would read a number first.
    [[...DAYS, '--max-requests', '0x2'], "docpipe: invalid --max-requests '0x2': expected a whole number >= 0"],
    [[...DAYS, '--requests-per-hour', '1e2'], "docpipe: invalid --requests-per-hour '1e2': expected a whole number >= 1"],
    [['jobs', 'message', 'job_1', 'Also', '--project', 'docs', '--poll-interval', 'abc'], "docpipe: invalid --poll-interval 'abc': expected a number of seconds > 0, or a duration such as 90s, 45m or 2h"],
    [['jobs', 'message', 'job_1', 'Also', '--project', 'docs', '--jobs-per-hour', '2.5'], "docpipe: invalid --jobs-per-hour '2.5': expected a whole number >= 1"],
    [['jobs', 'message', '..', 'Also', '--project', 'docs'], "docpipe: messages:1: invalid job id '..': expected the id of a job (jobs list shows them)"],
    [['export', 'visitors', '--project', '..', '--from', '2026-03-01', '--to', '2026-03-02'], "docpipe: invalid --project '..': it is a relative path"],
    [['export', 'visitors', '--project', '.', '--from', '2026-03-01', '--to', '2026-03-02'], "docpipe: invalid --project '.': it is a relative path"],
    [['export', 'visitors', '--project', 'docs/../x', '--from', '2026-03-01', '--to', '2026-03-02'], "docpipe: invalid --project 'docs/../x': it contains a slash"],
    [['export', 'visitors', '--project', 'p'.repeat(201), '--from', '2026-03-01', '--to', '2026-03-02'], `docpipe: invalid --project '${'p'.repeat(201)}': it is too long (more than 200 characters, URL-encoded)`],
    [['sandbox', '--port', 'eighty'], "docpipe: invalid --port 'eighty': expected a whole number >= 0 and <= 65535"],
    // An empty path would be an in-memory database: the run's data lost at exit, its budget forgotten.
    [[...DAYS, '--db', ''], "docpipe: invalid --db '': expected the path of a DuckDB file (check --db or DOCPIPE_DB)"],
    [[...DAYS, '--db', '.'], "docpipe: invalid --db '.': it names a folder; expected the path of a DuckDB file (e.g. data/docpipe.duckdb)"],
    // A trailing slash: DuckDB would open `newdb` as the file, and the spool would go into `newdb/.spool`.
    [[...DAYS, '--db', 'newdb/'], "docpipe: invalid --db 'newdb/': it names a folder; expected the path of a DuckDB file (e.g. data/docpipe.duckdb)"],
    [[...DAYS, '--db', 'package.json/x.duckdb'], "docpipe: database 'package.json/x.duckdb' cannot be created: a part of its folder is a file (check --db or DOCPIPE_DB)"],
  ])('%j is exit 2: %s', async (argv, line) => {
    const result = await h.run(argv);
    expect(result.code).toBe(2);
    expect(asText(result.stderr)).toBe(`${line}\n`);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('the failure is a JSON log line under JSON logs, and the `docpipe:` line in text logs', async () => {
    const bad = [...DAYS, '--max-requests', 'abc'];
    const message = "invalid --max-requests 'abc': expected a whole number >= 0";
    const json = await h.run(bad);
    expect(json.code).toBe(2);
    expect(json.stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown)).toEqual([
      { ts: '2026-03-10T06:00:00.000Z', level: 'error', event: 'failed', error: message, exit_code: 2 },
    ]);
    expect((await h.run([...bad, '--log-format', 'text'])).stderr).toBe(`docpipe: ${message}\n`);
    // Without --log-format: DOCPIPE_LOG_FORMAT, else JSON when stderr is no terminal.
    expect(JSON.parse((await bare(bad)).stderr)).toMatchObject({ event: 'failed', error: message });
    process.env.DOCPIPE_LOG_FORMAT = 'text';
    try {
      expect((await bare(bad)).stderr).toBe(`docpipe: ${message}\n`);
    } finally {
      delete process.env.DOCPIPE_LOG_FORMAT;
    }
    // A --log-format that is not one: refused in the default format, naming what was typed.
    const xml = await bare([...bad.slice(0, -2), '--log-format', 'xml']);
    expect(xml.code).toBe(2);
    expect(JSON.parse(xml.stderr)).toMatchObject({ event: 'failed', exit_code: 2, error: expect.stringContaining('xml') });
  });

  it('a yes/no option typed with a value reads it as DOCPIPE_ variables do: --dry-run=yes is a dry run, --dry-run=maybe is refused', async () => {
    const file = join(h.dir, 'p.txt');
    writeFileSync(file, 'Only a dry run [pr]\n');
    const dry = await h.run(['jobs', 'submit', file, '--project', 'docs', '--dry-run=yes']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/no request made/);
    // Typed twice, the last one counts, whatever its form.
    const twice = await h.run(['jobs', 'submit', file, '--project', 'docs', '--dry-run=no', '--dry-run']);
    expect(twice.stdout).toMatch(/no request made/);
    const odd = await h.run(['jobs', 'submit', file, '--project', 'docs', '--dryRun=maybe']);
    expect(odd.code).toBe(2);
    expect(asText(odd.stderr)).toBe("docpipe: invalid --dryRun 'maybe': expected true or false (or 1/0, yes/no)\n");
    expect(h.sandbox.requests).toHaveLength(0);
    // --refresh=1 fetches again what is loaded; --refresh=off does not.
    const range = ['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02'];
    expect((await h.run(range)).code).toBe(0);
    expect(summaryOf(await h.run([...range, '--refresh=off']))).toMatchObject({ windowsSkipped: 1, requests: 0 });
    expect(summaryOf(await h.run([...range, '--refresh=1']))).toMatchObject({ windowsLoaded: 1 });
  });

  it('an option typed twice takes its last value, and a repeatable one (--project) takes both', async () => {
    const range = ['export', 'visitors', '--from', '2026-03-01', '--to', '2026-03-02'];
    const both = await h.run([...range, '--project', 'docs', '--project', 'guides']);
    expect(summaryOf(both)).toMatchObject({ windowsPlanned: 2, windowsLoaded: 2 });
    const query = await h.run(['query', 'SELECT 1 AS x', '--format', 'table', '--format', 'json']);
    expect(query.code, query.stderr).toBe(0);
    expect(query.stdout).toBe('{"x":1}\n');
    const last = await h.run(['export', 'visitors', '--project', 'docs', '--last', '7d', '--last', '2d']);
    expect(last.code, last.stderr).toBe(0);
    expect(summaryOf(last)).toMatchObject({ windowsPlanned: 2 });
    const status = await h.run(['jobs', 'list', '--status', 'failed', '--status', 'completed']);
    expect(status.code, status.stderr).toBe(0);
  });

  it('a range typed on the command line wins over the other form set in the environment', async () => {
    process.env.DOCPIPE_LAST = '7d';
    try {
      const dates = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02']);
      expect(dates.code, dates.stderr).toBe(0);
      expect(summaryOf(dates)).toMatchObject({ windowsPlanned: 1 });
    } finally {
      delete process.env.DOCPIPE_LAST;
    }
    process.env.DOCPIPE_FROM = '2026-02-01';
    process.env.DOCPIPE_TO = '2026-03-01';
    try {
      const last = await h.run(['export', 'visitors', '--project', 'docs', '--last', '2d']);
      expect(last.code, last.stderr).toBe(0);
      expect(summaryOf(last)).toMatchObject({ windowsPlanned: 2 });
    } finally {
      delete process.env.DOCPIPE_FROM;
      delete process.env.DOCPIPE_TO;
    }
  });

  it('reads the same rules from DOCPIPE_ variables', async () => {
    process.env.DOCPIPE_MAX_REQUESTS = 'lots';
    try {
      const result = await h.run(DAYS);
      expect(result.code).toBe(2);
      expect(asText(result.stderr)).toBe("docpipe: invalid --max-requests 'lots': expected a whole number >= 0\n");
    } finally {
      delete process.env.DOCPIPE_MAX_REQUESTS;
    }
  });

  it('a yes/no DOCPIPE_ variable reads 1/yes as yes and refuses what is neither; the command line wins', async () => {
    const prompts = join(h.dir, 'prompts.txt');
    writeFileSync(prompts, 'Fix the typo [nopr]\n');
    const submit = ['jobs', 'submit', prompts, '--project', 'docs'];
    try {
      for (const yes of ['1', 'yes', 'TRUE']) {
        process.env.DOCPIPE_DRY_RUN = yes;
        const dry = await h.run(submit);
        expect(dry.code, dry.stderr).toBe(0);
        expect(dry.stdout).toContain('dry run: 1 prompts');
      }
      process.env.DOCPIPE_DRY_RUN = 'maybe';
      const bad = await h.run(submit);
      expect(bad.code).toBe(2);
      expect(asText(bad.stderr)).toBe("docpipe: invalid DOCPIPE_DRY_RUN 'maybe': expected true or false (or 1/0, yes/no)\n");
      // Typed in either spelling yargs takes, the command line wins.
      process.env.DOCPIPE_DRY_RUN = 'false';
      const camel = await h.run([...submit, '--dryRun']);
      expect(camel.stdout).toContain('dry run: 1 prompts');
      process.env.DOCPIPE_DRY_RUN = '1';
      const typed = await h.run([...submit, '--no-dryRun']);
      expect(typed.code, typed.stderr).toBe(0);
      expect(typed.stdout).not.toContain('dry run');
      expect(h.sandbox.jobs()).toHaveLength(1);
    } finally {
      delete process.env.DOCPIPE_DRY_RUN;
    }
  });

  it('jobs submit: --jobs-per-hour 0.5, a bad project and a --results folder that does not exist are refused before any request', async () => {
    const file = join(h.dir, 'p.txt');
    writeFileSync(file, 'one\n');
    const rate = await h.run(['jobs', 'submit', file, '--project', 'docs', '--jobs-per-hour', '0.5']);
    expect(rate.code).toBe(2);
    expect(asText(rate.stderr)).toBe("docpipe: invalid --jobs-per-hour '0.5': expected a whole number >= 1\n");
    const project = await h.run(['jobs', 'submit', file, '--project', 'a/b']);
    expect(project.code).toBe(2);
    expect(asText(project.stderr)).toBe("docpipe: invalid --project 'a/b': it contains a slash\n");
    const results = join(h.dir, 'missing', 'out.csv');
    const missing = await h.run(['jobs', 'submit', file, '--project', 'docs', '--results', results]);
    expect(missing.code).toBe(2);
    expect(asText(missing.stderr)).toBe(`docpipe: invalid --results '${results}': folder '${join(h.dir, 'missing')}' does not exist\n`);
    expect(h.sandbox.requests).toHaveLength(0);
    expect(existsSync(h.db)).toBe(false);
  });

  it('--results that is the prompt file, a folder or a pipe is refused before any request; one through a symbolic link writes its target', async () => {
    const file = join(h.dir, 'p.csv');
    writeFileSync(file, 'id,prompt\nfix-1,one [pr]\n');
    const folder = join(h.dir, 'results.csv');
    mkdirSync(folder);
    const fifo = join(h.dir, 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    for (const [results, why] of [
      [file, 'it is the file the prompts are read from; name another file'],
      [folder, 'it is a folder; expected a file name'],
      [fifo, 'it is not a regular file; expected a file name'],
      ['', 'expected a .jsonl or .csv file'],
      [join(file, 'out.csv'), `'${file}' is a file, not a folder`],
    ] as const) {
      const refused = await h.run(['jobs', 'submit', file, '--project', 'docs', '--results', results]);
      expect(refused.code).toBe(2);
      expect(asText(refused.stderr)).toBe(`docpipe: invalid --results '${results}': ${why}\n`);
    }
    expect(h.sandbox.requests).toHaveLength(0);
    expect(readFileSync(file, 'utf8')).toBe('id,prompt\nfix-1,one [pr]\n');
    const target = join(h.dir, 'target.csv');
    writeFileSync(target, '');
    const link = join(h.dir, 'link.csv');
    symlinkSync(target, link);
    const result = await h.run(['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.01', '--results', link]);
    expect(result.code, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toMatch(/^prompt_key,.*\nfix-1,/);
  });

  it('a --results file in a folder that exists is written', async () => {
    const file = join(h.dir, 'p.txt');
    writeFileSync(file, 'one [pr]\n');
    mkdirSync(join(h.dir, 'out'));
    const out = join(h.dir, 'out', 'r.jsonl');
    const result = await h.run(['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.01', '--results', out]);
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8').trim())).toMatchObject({ prompt: 'one [pr]', status: 'completed' });
  });

  it('jobs list --status: a typo lists the valid statuses; a status the ledger holds is listed', async () => {
    const file = join(h.dir, 'p.txt');
    writeFileSync(file, 'one\n');
    expect((await h.run(['jobs', 'submit', file, '--project', 'docs', '--poll-interval', '0.01'])).code).toBe(0);
    const typo = await h.run(['jobs', 'list', '--status', 'faild']);
    expect(typo.code).toBe(2);
    expect(asText(typo.stderr)).toBe(
      "docpipe: invalid --status 'faild': expected one of active, completed, archived, failed, pending, unknown, timed_out, rejected (did you mean 'failed'?)\n",
    );
    // A status the API added later, stored verbatim, can be listed.
    const insert = "INSERT INTO agent_jobs (project_id, prompt_key, prompt, status) VALUES ('docs', 'k1', 'two', 'cancelled')";
    expect((await h.run(['query', insert, '--write'])).code).toBe(0);
    const later = await h.run(['jobs', 'list', '--status', 'cancelled', '--format', 'json']);
    expect(later.code).toBe(0);
    expect(later.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { prompt: string }).prompt)).toEqual(['two']);
    const none = await h.run(['jobs', 'list', '--status', 'failed', '--format', 'json']);
    expect(none).toMatchObject({ code: 0, stdout: '' });
  });

  it('a pipeline file: a BOM is fine, every error is reported at once, and bad project ids are refused', async () => {
    const bom = join(h.dir, 'bom.json');
    writeFileSync(bom, `\uFEFF${JSON.stringify({ projects: ['docs'], start: '2026-03-01' })}`);
    const ok = await h.run(['sync', bom, '--max-requests', '0']);
    expect(asText(ok.stderr)).not.toMatch(/not valid JSON/);
    expect(ok.code).toBe(75); // read and planned; the cap of 0 requests stopped it
    const bad = join(h.dir, 'bad.json');
    writeFileSync(bad, `\uFEFF${JSON.stringify({ projects: ['..'], start: '2026-02-30', window: 'range', lookbackDays: -1 })}`);
    const result = await h.run(['sync', bad]);
    expect(result.code).toBe(2);
    const line = result.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/lookbackDays: /);
    expect(line).toMatch(/projects: invalid project id '\.\.': it is a relative path/);
    expect(line).toMatch(/window: 'range' has no meaning/);
    expect(line).toMatch(/2026-02-30/);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('a pipeline file with a key given twice is refused, naming the key (JSON.parse would keep the last)', async () => {
    const twice = join(h.dir, 'twice.json');
    writeFileSync(twice, '{"projects": ["docs"], "start": "2026-03-01", "maxRequestsPerRun": 5, "maxRequestsPerRun": 500}');
    const result = await h.run(['sync', twice, '--log-format', 'text']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`docpipe: pipeline file '${twice}': key "maxRequestsPerRun" given twice (keep one)\n`);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});
