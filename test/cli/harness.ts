/** Runs the CLI in-process against a real sandbox on 127.0.0.1, with a fake clock only. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/core/clock.js';
import { runCli } from '../../src/cli/main.js';
import { Database } from '../../src/load/database.js';
import { SANDBOX_API_KEY, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Harness {
  sandbox: Sandbox;
  clock: ManualClock;
  dir: string;
  db: string;
  /** Runs `docpipe ...` with the sandbox's URL and key, JSON logs, and the test database. */
  /** `httpTimeoutMs`: how long a request may take (real time) before it is tried again. @default 5000 */
  run(args: string[], options?: { signal?: AbortSignal; onStderr?: (text: string) => void; withKey?: boolean; httpTimeoutMs?: number }): Promise<CliResult>;
  /** Requests the sandbox received so far, optionally only those whose path contains `part`. */
  requests(part?: string, method?: string): number;
  close(): Promise<void>;
}

export async function startHarness(now: string, options: SandboxOptions = {}): Promise<Harness> {
  const clock = new ManualClock(Date.parse(now));
  const sandbox = await startSandbox({ now: () => clock.now(), ...options });
  const dir = mkdtempSync(join(tmpdir(), 'docpipe-cli-'));
  const db = join(dir, 'test.duckdb');
  // The key comes from a file, as it should: on the command line docpipe warns about it.
  const keyFile = join(dir, 'sandbox.key');
  writeFileSync(keyFile, `${SANDBOX_API_KEY}\n`);
  return {
    sandbox,
    clock,
    dir,
    db,
    async run(args, opts = {}) {
      let stdout = '';
      let stderr = '';
      // Defaults that a test may override by passing the option itself.
      const defaults: [string, string][] = [['--base-url', sandbox.url], ['--db', db], ['--log-format', 'json']];
      if (opts.withKey !== false && !args.includes('--api-key')) defaults.push(['--api-key-file', keyFile]);
      const extra = defaults.filter(([flag]) => !args.includes(flag)).flat();
      // Options go before a `--` (what follows it is not read as options).
      const end = args.indexOf('--');
      const argv = end === -1 ? [...args, ...extra] : [...args.slice(0, end), ...extra, ...args.slice(end)];
      const code = await runCli(argv, {
        io: {
          stdout: (t) => void (stdout += t),
          stderr: (t) => {
            stderr += t;
            opts.onStderr?.(t);
          },
          isTTY: false,
          clock,
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
        // Backoff in milliseconds so tests stay fast; Retry-After waits go through the fake clock.
        http: { minBackoffMs: 1, maxBackoffMs: 5, timeoutMs: opts.httpTimeoutMs ?? 5_000 },
      });
      return { code, stdout, stderr };
    },
    requests(part, method) {
      return sandbox.requests.filter((r) => (!part || r.path.includes(part)) && (!method || r.method === method)).length;
    },
    async close() {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The JSON summary line a command prints on stdout. */
export function summaryOf(result: CliResult): Record<string, unknown> {
  const line = result.stdout.trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(line) as Record<string, unknown>;
}

export function logLines(result: CliResult): Record<string, unknown>[] {
  return result.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Runs SQL on the test database (opened, then closed again so that the next command gets the file). */
export function queryDb<T extends Record<string, unknown>>(h: Pick<Harness, 'db'>, sql: string): Promise<T[]> {
  return Database.with(h.db, {}, (db) => db.all<T>(sql));
}

/**
 * Runs `docpipe ...` as a real process on the real clock (with the sandbox's URL and key and
 * the test database) and kills it with SIGKILL once its log shows `line`; resolves when it
 * is gone. Rejects if it ends before that.
 */
export async function killWhenLogged(h: Pick<Harness, 'db' | 'sandbox'>, args: string[], line: string): Promise<void> {
  const child = spawn(process.execPath, ['bin/docpipe.js', ...args, '--db', h.db, '--base-url', h.sandbox.url], {
    env: { ...process.env, DOCPIPE_API_KEY: SANDBOX_API_KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(line)) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.once('exit', () => reject(new Error(`docpipe ended before logging '${line}': ${stderr}`)));
  });
  await exited;
}

/**
 * stderr as a person reads it in text logs: under JSON logs the lines that text logs write as
 * `docpipe: ...` (a command's failure, `status --check` findings, jobs kept in the spool) and
 * the stop notice are JSON log lines; this writes them back in their text form, leaving every
 * other line as it is. Tests of the JSON form itself read the lines with logLines.
 */
export function asText(stderr: string): string {
  return stderr
    .split('\n')
    .map((line) => {
      if (!line.startsWith('{')) return line;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.level === 'error' && entry.event === 'failed') return `docpipe: ${String(entry.error)}`;
      if (entry.event === 'stale' || entry.event === 'jobs kept in the spool') return `docpipe: ${String(entry.detail)}`;
      if (entry.event === 'stopping') return `\nstopping (${entry.signal === 'SIGINT' ? 'Ctrl-C' : String(entry.signal)}): ${String(entry.detail)}`;
      return line;
    })
    .join('\n');
}

/**
 * Another process, started and ready to hold the file read-write (as an analyst's client
 * would): `take` makes it take the file (and resolves once it holds it), `release` lets go.
 */
export async function fileHolder(path: string): Promise<{ take: () => Promise<void>; release: () => Promise<void> }> {
  const script = `import { DuckDBInstance } from '@duckdb/node-api';
    import { createInterface } from 'node:readline';
    let instance;
    console.log('ready');
    const lines = createInterface({ input: process.stdin });
    lines.on('line', async () => { instance = await DuckDBInstance.create(process.argv[1]); console.log('held'); });
    lines.on('close', () => { instance?.closeSync(); process.exit(0); });`;
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const nextLine = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      lines.once('line', () => resolve());
      child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
    });
  await nextLine();
  return {
    take: async () => {
      const held = nextLine();
      child.stdin!.write('go\n');
      await held;
    },
    release: async () => {
      child.stdin!.end();
      await exited;
    },
  };
}

/** Holds the file read-write from another process until `release`. */
export async function holdFile(path: string): Promise<{ release: () => Promise<void> }> {
  const holder = await fileHolder(path);
  await holder.take();
  return holder;
}
