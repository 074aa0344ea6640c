/** Issue 8, pure parts: numbers as typed, did-you-mean, project ids, keys, pipeline errors, retry bound. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiKeySource, resolveApiKey } from '../../src/cli/api-key.js';
import { requestedLogFormat } from '../../src/cli/io.js';
import { apiKeyProblem } from '../../src/api/http-client.js';
import { envName } from '../../src/cli/help.js';
import { checkNumberValuesGiven, numberOption, parseNumberOption } from '../../src/cli/options.js';
import { closestWord } from '../../src/core/did-you-mean.js';
import { projectIdProblem } from '../../src/core/domain.js';
import { UsageError } from '../../src/core/errors.js';
import { checkPipelineConfig } from '../../src/extract/pipeline-config.js';
import { provesKey } from '../../src/lib/session.js';
import { formatSummary } from '../../src/cli/run-analytics.js';
import { emptyExportSummary } from '../../src/extract/run-export.js';

describe('parseNumberOption', () => {
  const whole = { integer: true, min: 0 };
  it.each([
    ['max-requests', '5', whole, 5],
    ['max-requests', ['3', '7'], whole, 7],
    ['max-requests', 12, whole, 12],
    ['poll-interval', '0.5', { above: 0 }, 0.5],
    ['poll-interval', '.25', { above: 0 }, 0.25],
    ['port', '65535', { integer: true, min: 0, max: 65_535 }, 65_535],
    ['timeout', '2h', { above: 0, seconds: true }, 7_200],
    ['timeout', '45M', { above: 0, seconds: true }, 2_700],
    ['lock-timeout', ' 90 s ', { min: 0, seconds: true }, 90],
    ['lock-timeout', '0s', { min: 0, seconds: true }, 0],
    ['poll-interval', '1.5m', { above: 0, seconds: true }, 90],
    ['timeout', '1d', { above: 0, seconds: true }, 86_400],
    ['timeout', '600', { above: 0, seconds: true }, 600],
    ['seed', '-1', {}, -1],
    ['seed', '-0.5', {}, -0.5],
  ] as const)('--%s %j is %d', (name, raw, rule, expected) => {
    expect(parseNumberOption(name, raw, rule)).toBe(expected);
  });

  it.each([
    ['max-requests', 'abc', whole, "invalid --max-requests 'abc': expected a whole number >= 0"],
    ['requests-per-hour', 'abc', { integer: true, min: 1 }, "invalid --requests-per-hour 'abc': expected a whole number >= 1"],
    ['jobs-per-hour', '0.5', { integer: true, min: 1 }, "invalid --jobs-per-hour '0.5': expected a whole number >= 1"],
    ['jobs-per-hour', 0.5, { integer: true, min: 1 }, "invalid --jobs-per-hour '0.5': expected a whole number >= 1"],
    ['max-requests', '-1', whole, "invalid --max-requests '-1': expected a whole number >= 0"],
    ['max-requests', '', whole, "invalid --max-requests '': expected a whole number >= 0"],
    ['timeout', '0', { above: 0 }, "invalid --timeout '0': expected a number > 0"],
    ['port', '70000', { integer: true, min: 0, max: 65_535 }, "invalid --port '70000': expected a whole number >= 0 and <= 65535"],
    ['lock-timeout', Number.NaN, { min: 0 }, "invalid --lock-timeout 'NaN': expected a number >= 0"],
    ['timeout', '2 hours', { above: 0, seconds: true }, "invalid --timeout '2 hours': expected a number of seconds > 0, or a duration such as 90s, 45m or 2h"],
    ['timeout', '0m', { above: 0, seconds: true }, "invalid --timeout '0m': expected a number of seconds > 0, or a duration such as 90s, 45m or 2h"],
    ['max-requests', '5m', whole, "invalid --max-requests '5m': expected a whole number >= 0"],
    ['timeout', '-1h', { above: 0, seconds: true }, "invalid --timeout '-1h'"],
    // Past 2^53 the number read is not the one typed.
    ['max-requests', '9007199254740993', whole, "invalid --max-requests '9007199254740993': expected a whole number >= 0"],
    ['timeout', '1e400', { above: 0, seconds: true }, "invalid --timeout '1e400'"],
  ] as const)('--%s %j is refused, naming the value typed', (name, raw, rule, message) => {
    expect(() => parseNumberOption(name, raw, rule)).toThrow(UsageError);
    expect(() => parseNumberOption(name, raw, rule)).toThrow(message);
  });
});

describe('checkNumberValuesGiven', () => {
  numberOption('test-level', { min: -10 }, { describe: 'a test option', default: 1 });
  it('refuses a numeric option with a default typed without a value (yargs would take the default)', () => {
    for (const argv of [['--test-level'], ['--test-level', '--verbose'], ['x', '--test-level', '-v']]) {
      expect(() => checkNumberValuesGiven(argv), argv.join(' ')).toThrow(new UsageError('invalid --test-level: no value given; expected a number >= -10'));
    }
  });
  it('takes a value, a negative one too, and ignores what follows --', () => {
    for (const argv of [['--test-level', '3'], ['--test-level', '-1'], ['--test-level', '-.5'], ['--test-level=2'], ['--', '--test-level']]) {
      expect(() => checkNumberValuesGiven(argv), argv.join(' ')).not.toThrow();
    }
  });
});

describe('closestWord', () => {
  const statuses = ['active', 'completed', 'archived', 'failed', 'pending', 'unknown', 'timed_out', 'rejected'];
  it.each([
    ['faild', statuses, 'failed'],
    ['Completd', statuses, 'completed'],
    ['timedout', statuses, 'timed_out'],
    ['xyz', statuses, undefined],
    ['exprot', ['export', 'sync', 'query'], 'export'],
  ] as const)('%s -> %s', (typed, candidates, expected) => {
    expect(closestWord(typed, candidates)).toBe(expected);
  });
});

describe('projectIdProblem', () => {
  it.each(['docs', 'my-project_2', '64f1c0ffee', 'a.b', 'mint_docs', 'Mint_Docs', 'MINT_ABCDEFGHIJKLMNOPQRST'])('accepts %s', (id) => {
    expect(projectIdProblem(id)).toBeUndefined();
  });
  it.each([
    ['.', 'it is a relative path'],
    ['..', 'it is a relative path'],
    ['a/b', 'it contains a slash'],
    ['a\\b', 'it contains a slash'],
    ['a b', 'it contains a space or a control character'],
    ['a\nb', 'it contains a space or a control character'],
    ['a?b', 'it contains ?, # or %'],
    ['', 'it is empty'],
    ['mint_abcdefghijklmnopqr', 'it is shaped like an API key (mint_ and a long tail), not a project id; the key goes in DOCPIPE_API_KEY'],
  ])('refuses %j: %s', (id, problem) => {
    expect(projectIdProblem(id)).toBe(problem);
  });
});

describe('apiKeyProblem', () => {
  it('accepts an admin key', () => {
    expect(apiKeyProblem('mint_AbC123_xyz')).toBeUndefined();
  });
  it.each([
    ['mint_a b', 'U+0020 at position 7'],
    ['mint_\u0007x', 'U+0007 at position 6'],
    ['mint_é', 'U+00E9 at position 6'],
    ['mint_a\r\nX-Evil: 1', 'U+000D at position 7'],
  ])('refuses %j without showing the key', (key, where) => {
    const problem = apiKeyProblem(key);
    expect(problem).toContain(where);
    expect(problem).not.toContain(key);
  });
});

describe('provesKey', () => {
  it.each([
    [200, true],
    [404, true],
    [400, true],
    [401, false],
    [403, false],
    [429, false],
    [500, false],
    [0, false],
  ])('HTTP %d proves the key: %s', (status, expected) => {
    expect(provesKey(status)).toBe(expected);
  });
});

describe('checkPipelineConfig', () => {
  it('reports every problem of the file at once', () => {
    const check = checkPipelineConfig({
      projects: ['docs', '..'],
      metrics: ['visitors', 'sessions'],
      start: '2026-02-30',
      window: 'range',
      lookbackDays: -1,
      requestsPerHour: 0.5,
      maxRequestsPerRun: 0,
      colour: 'blue',
    });
    expect(check.config).toBeUndefined();
    const text = check.errors.join('\n');
    expect(text).toMatch(/^colour: unknown field/m);
    expect(text).toMatch(/^metrics\.1: /m);
    expect(text).toMatch(/^lookbackDays: /m);
    expect(text).toMatch(/^requestsPerHour: /m);
    expect(text).toMatch(/^maxRequestsPerRun: .*>=1.* \(got 0\)$/m);
    expect(text).toMatch(/^projects: invalid project id '\.\.': it is a relative path$/m);
    expect(text).toMatch(/^window: 'range' has no meaning/m);
    expect(text).toMatch(/2026-02-30/);
    expect(check.errors).toHaveLength(8);
  });

  it('refuses a lookback past a year (every window would be fetched again every night)', () => {
    const check = checkPipelineConfig({ projects: ['docs'], start: '2026-01-01', lookbackDays: 99999999 });
    expect(check.errors).toEqual([expect.stringMatching(/^lookbackDays: .*366.* \(got 99999999\)$/)]);
    expect(checkPipelineConfig({ projects: ['docs'], start: '2026-01-01', lookbackDays: 366 }).errors).toEqual([]);
  });

  it('still accepts a good file, with its defaults', () => {
    const check = checkPipelineConfig({ projects: ['docs'], start: '2026-01-01' });
    expect(check.errors).toEqual([]);
    expect(check.config).toMatchObject({ projects: ['docs'], metrics: ['visitors', 'views'], grains: ['day'], lookbackDays: 2, requestsPerHour: 100 });
  });
});

describe('envName', () => {
  it('names the DOCPIPE_ variable of an option', () => {
    expect(envName('max-requests')).toBe('DOCPIPE_MAX_REQUESTS');
    expect(envName('api-key')).toBe('DOCPIPE_API_KEY');
  });
});

describe('apiKeySource', () => {
  it('names where the key came from, for the message of a refused key', () => {
    const saved = process.env.DOCPIPE_API_KEY;
    try {
      process.env.DOCPIPE_API_KEY = 'mint_from_env';
      expect(apiKeySource({ apiKey: 'mint_from_env' })).toBe('DOCPIPE_API_KEY');
      expect(apiKeySource({ apiKey: 'mint_typed' })).toBe('--api-key');
      const dir = mkdtempSync(join(tmpdir(), 'docpipe-key-'));
      writeFileSync(join(dir, 'key.txt'), 'mint_in_file\n');
      expect(apiKeySource({ apiKeyFile: join(dir, 'key.txt') })).toBe(`--api-key-file '${join(dir, 'key.txt')}'`);
      rmSync(dir, { recursive: true, force: true });
    } finally {
      if (saved === undefined) delete process.env.DOCPIPE_API_KEY;
      else process.env.DOCPIPE_API_KEY = saved;
    }
  });

  it('refuses --api-key and --api-key-file typed together, echoing neither', () => {
    const saved = { key: process.env.DOCPIPE_API_KEY, file: process.env.DOCPIPE_API_KEY_FILE };
    const dir = mkdtempSync(join(tmpdir(), 'docpipe-key-'));
    try {
      const file = join(dir, 'key.txt');
      writeFileSync(file, 'mint_in_file_SECRET\n');
      delete process.env.DOCPIPE_API_KEY;
      delete process.env.DOCPIPE_API_KEY_FILE;
      const both = (): string => resolveApiKey({ apiKey: 'mint_typed_SECRET', apiKeyFile: file });
      expect(both).toThrow(/^--api-key and --api-key-file are both given: keep one$/);
      // Either one from the environment: the typed one wins, as documented.
      process.env.DOCPIPE_API_KEY = 'mint_env_SECRET';
      expect(resolveApiKey({ apiKey: 'mint_env_SECRET', apiKeyFile: file })).toBe('mint_in_file_SECRET');
      delete process.env.DOCPIPE_API_KEY;
      process.env.DOCPIPE_API_KEY_FILE = file;
      expect(resolveApiKey({ apiKey: 'mint_typed_SECRET', apiKeyFile: file })).toBe('mint_typed_SECRET');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      for (const [name, value] of [['DOCPIPE_API_KEY', saved.key], ['DOCPIPE_API_KEY_FILE', saved.file]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('does not echo a key given as the key file by mistake, and names a real path', () => {
    const saved = process.env.DOCPIPE_API_KEY;
    delete process.env.DOCPIPE_API_KEY;
    try {
      for (const key of ['mint_SECRETxyz123LEAKCHECK', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv']) {
        expect(() => resolveApiKey({ apiKeyFile: key })).toThrow('cannot read --api-key-file given (it looks like a key itself: set DOCPIPE_API_KEY to it instead)');
        expect(() => resolveApiKey({ apiKeyFile: key })).not.toThrow(key);
      }
      expect(() => resolveApiKey({ apiKeyFile: '/etc/docpipe/no-such.key' })).toThrow("cannot read --api-key-file '/etc/docpipe/no-such.key'");
    } finally {
      if (saved !== undefined) process.env.DOCPIPE_API_KEY = saved;
    }
  });
});

describe('requestedLogFormat (the format of the lines written without a parse: the final error, the stop notice)', () => {
  it.each([
    [[], {}, false, 'json'],
    [[], {}, true, 'text'],
    [['query', '--log-format', 'text'], {}, false, 'text'],
    [['query', '--log-format=json'], {}, true, 'json'],
    [['query', '--logFormat', 'json'], {}, true, 'json'],
    [['query', '--log-format', 'json', '--log-format', 'text'], {}, false, 'text'],
    [['query'], { DOCPIPE_LOG_FORMAT: 'text' }, false, 'text'],
    [['query', '--log-format', 'json'], { DOCPIPE_LOG_FORMAT: 'text' }, true, 'json'],
    // Not a format: as if not given (the parse refuses it, in the terminal's default format)...
    [['query', '--log-format', 'xml'], { DOCPIPE_LOG_FORMAT: 'text' }, false, 'text'],
    [['query', '--log-format', 'xml'], {}, false, 'json'],
    [['query'], { DOCPIPE_LOG_FORMAT: 'xml' }, true, 'text'],
    [['query', '--log-format'], {}, true, 'text'],
    // ...and what follows `--` is SQL, not an option.
    [['query', '--', '--log-format', 'text'], {}, false, 'json'],
  ] as const)('%j with %j (terminal: %s) is %s', (argv, env, isTTY, expected) => {
    expect(requestedLogFormat(argv, env, isTTY)).toBe(expected);
  });
});

describe('formatSummary', () => {
  const base = { ...emptyExportSummary(), command: 'export visitors', runId: 'r', retries: 0, windowsPlanned: 5, windowsLoaded: 1 };
  it('tells windows another run is at work on from windows already loaded', () => {
    expect(formatSummary({ ...base, windowsSkipped: 4, windowsLeftToOthers: 1 })).toMatch(/^5 windows planned, 4 skipped \(3 already loaded, 1 left to another run at work on them\), 1 loaded,/);
    expect(formatSummary({ ...base, windowsSkipped: 4 })).toMatch(/^5 windows planned, 4 skipped \(already loaded\), 1 loaded,/);
  });
});
