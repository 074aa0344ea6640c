import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, asText } from './harness.js';

describe('docpipe query, sandbox and the shell', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('2026-03-10T06:00:00Z', { site: { paths: 50 } });
    await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03']);
  });
  afterAll(async () => {
    await h.close();
  });

  it('--verbose adds the stack and every cause to the one line, not in its place', async () => {
    const garbage = join(h.dir, 'garbage.duckdb');
    writeFileSync(garbage, 'not a database');
    const plain = await h.run(['query', 'SELECT 1', '--db', garbage, '--log-format', 'text']);
    const verbose = await h.run(['query', 'SELECT 1', '--db', garbage, '--log-format', 'text', '--verbose']);
    expect(plain.code).toBe(2);
    expect(verbose.code).toBe(2);
    const line = asText(plain.stderr).trim();
    expect(line).toMatch(/^docpipe: database '.*garbage\.duckdb' is not a DuckDB database file \(check --db or DOCPIPE_DB\)$/);
    const lines = asText(verbose.stderr).split('\n');
    expect(lines[0]).toBe(line);
    expect(lines.some((l) => /^\s+at /.test(l))).toBe(true);
    // DuckDB's own words, the cause.
    expect(lines.find((l) => l.startsWith('caused by: '))).toMatch(/not a valid DuckDB database file/);
  });

  it("a database file with none of docpipe's tables (its first run stopped before making them) is named as such, not as an older docpipe's", async () => {
    // What a run leaves when it is stopped (a kill, a full disk) after making the file and before its tables.
    const bare = join(h.dir, 'bare.duckdb');
    const instance = await DuckDBInstance.create(bare);
    instance.closeSync();
    const read = await h.run(['query', '--db', bare, 'SELECT count(*) FROM page_visitors']);
    expect(read.code).toBe(2);
    expect(asText(read.stderr)).toMatch(
      /^docpipe: query: Catalog Error: .*page_visitors does not exist.* \(this database holds none of docpipe's tables yet: the run that made the file stopped before it made them; a docpipe command that writes, e\.g\. an export, makes them\)\n$/,
    );
    // So it does.
    expect((await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02', '--db', bare])).code).toBe(0);
    expect((await h.run(['query', '--db', bare, '--format', 'csv', 'SELECT count(*) > 0 AS loaded FROM page_views'])).stdout).toBe('loaded\ntrue\n');
  });

  it('--project takes one value each time it is typed: the SQL after it is the SQL, not a second project', async () => {
    const result = await h.run(['query', '--project', 'docs', 'SELECT 41 + 1 AS answer']);
    expect(result.code, asText(result.stderr)).toBe(0);
    expect(result.stdout).toMatch(/^answer\n-+\n\s*42\n\(1 row\)\n$/);
    // Repeated and comma-separated, it still names several (status lists each project it reads).
    const status = await h.run(['status', '--project', 'docs', '--project', 'guides,api', '--format', 'json']);
    expect(status.code, asText(status.stderr)).toBe(0);
    for (const project of ['docs', 'guides', 'api']) expect(status.stdout).toContain(`"${project}"`);
  });

  it('prints a table, CSV or JSON lines', async () => {
    const sql = `SELECT strftime(window_start, '%Y-%m-%d') AS day, total FROM view_totals ORDER BY day`;
    const table = await h.run(['query', sql]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^day\s+total\n-+\s+-+\n2026-03-01\s+\d+\n2026-03-02\s+\d+\n\(2 rows\)\n$/);
    const csv = await h.run(['query', sql, '--format', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('day,total');
    const json = await h.run(['query', sql, '--format', 'json']);
    const rows = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { day: string; total: number });
    expect(rows.map((r) => r.day)).toEqual(['2026-03-01', '2026-03-02']);
    expect(typeof rows[0]!.total).toBe('number');
  });

  it('output piped into a reader that stops early (| head) ends quietly: no stack trace, the exit code of the command', async () => {
    const child = spawn(process.execPath, ['bin/docpipe.js', 'query', '--db', h.db, '--format', 'csv', 'SELECT range AS n FROM range(300000)'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The reader takes the first chunk and goes away, as head does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });

  it('a SQL file of comments only is exit 2 naming it, not a native error', async () => {
    const file = join(h.dir, 'comments.sql');
    writeFileSync(file, '-- nothing yet\n/* later */\n');
    const result = await h.run(['query', '--file', file]);
    expect(result.code).toBe(2);
    expect(asText(result.stderr)).toBe(`docpipe: ${file}: no SQL statement in it\n`);
    // Semicolons alone (a stray ';', an editor's leftovers) hold no statement either.
    for (const sql of [';', ' ; ;\n-- done\n;']) {
      const bare = await h.run(['query', sql]);
      expect(bare.code, sql).toBe(2);
      expect(asText(bare.stderr)).toMatch(/no SQL statement in it\n$/);
    }
  });

  it('runs the ready-made queries in sql/queries', async () => {
    for (const file of ['daily-trend.sql', 'request-budget.sql']) {
      const result = await h.run(['query', '--file', join('sql/queries', file)]);
      expect(result.code, `${file}: ${result.stderr}`).toBe(0);
    }
  });

  it('reports bad SQL and missing files with exit 2, in one line', async () => {
    const bad = await h.run(['query', 'SELECT * FROM no_such_table']);
    expect(bad.code).toBe(2);
    expect(asText(bad.stderr)).toMatch(/^docpipe: query: Catalog Error: Table with name no_such_table does not exist/);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    const utf16 = join(h.dir, 'utf16.sql');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('SELECT 1', 'utf16le')]));
    const wide = await h.run(['query', '--file', utf16]);
    expect(wide.code).toBe(2);
    expect(asText(wide.stderr)).toBe(`docpipe: ${utf16}:1: is UTF-16, not UTF-8 (save the file as UTF-8)\n`);
    const missing = await h.run(['query', '--file', join(h.dir, 'missing.sql')]);
    expect(missing.code).toBe(2);
    expect(asText(missing.stderr)).toMatch(/cannot read --file/);
  });

  it('opens the database read-only: writes need --write, and a missing file is not created', async () => {
    const write = await h.run(['query', 'CREATE TABLE notes (note VARCHAR)']);
    expect(write.code).toBe(2);
    expect(asText(write.stderr).trim()).toMatch(/^docpipe: query: the database is opened read-only; pass --write to change it$/);
    const allowed = await h.run(['query', 'CREATE TABLE notes (note VARCHAR)', '--write']);
    expect(allowed.code).toBe(0);
    expect((await h.run(['query', 'SELECT count(*) AS n FROM notes', '--format', 'csv'])).stdout).toBe('n\n0\n');
    const typo = join(h.dir, 'typo.duckdb');
    const missing = await h.run(['query', 'SELECT 1', '--db', typo]);
    expect(missing.code).toBe(2);
    expect(asText(missing.stderr)).toMatch(/database '.*typo\.duckdb' does not exist/);
    expect(existsSync(typo)).toBe(false);
  });

  it('read-only, it does not detach the file to attach it again for writing', async () => {
    expect((await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-03'])).code).toBe(0);
    const count = async (): Promise<string> => (await h.run(['query', 'SELECT count(*) AS n FROM visitor_totals', '--format', 'csv'])).stdout;
    const before = await count();
    expect(before).toBe('n\n2\n');
    const alias = (await h.run(['query', 'SELECT current_database() AS d', '--format', 'csv'])).stdout.split('\n')[1]!;
    const reattach = await h.run(['query', `USE memory; DETACH ${alias}; ATTACH '${h.db}' AS again; DELETE FROM again.visitor_totals`]);
    expect(reattach.code).toBe(2);
    expect(asText(reattach.stderr)).toMatch(/^docpipe: query: the database is opened read-only; pass --write to change it$/m);
    // Nor, while it is attached, can it be attached a second time (DuckDB refuses it, by any path).
    const twice = await h.run(['query', `ATTACH '${h.db}' AS again; DELETE FROM again.visitor_totals`]);
    expect(twice.code).toBe(2);
    expect(await count()).toBe(before);
  });

  it('of several statements, a failure names the one that failed, and with --write says that those before it ran', async () => {
    expect((await h.run(['query', 'CREATE TABLE memo (line VARCHAR); INSERT INTO memo (line) VALUES (\'kept\')', '--write'])).code).toBe(0);
    const written = await h.run(['query', "DELETE FROM memo; SELECT 1; SELECT 'a'::INTEGER", '--write']);
    expect(written.code).toBe(2);
    expect(asText(written.stderr)).toBe(
      "docpipe: query: statement 3 of 3 (the 2 before it ran: what they committed stays): Conversion Error: Could not convert string 'a' to INT32\n",
    );
    // EXPLAIN ANALYZE runs its statement: it may have written.
    const explained = await h.run(['query', "EXPLAIN ANALYZE INSERT INTO memo (line) VALUES ('x'); SELECT 'a'::INTEGER", '--write']);
    expect(asText(explained.stderr)).toMatch(/^docpipe: query: statement 2 of 2 \(the statement before it ran: what it committed stays\)/);
    // Statements that wrote nothing are not said to have changed anything.
    const selects = await h.run(['query', "SELECT 1; SELECT 'a'::INTEGER", '--write']);
    expect(asText(selects.stderr)).toBe("docpipe: query: statement 2 of 2: Conversion Error: Could not convert string 'a' to INT32\n");
    // The DELETE stayed; the row EXPLAIN ANALYZE inserted after it too.
    expect((await h.run(['query', 'SELECT line FROM memo', '--format', 'csv'])).stdout).toBe('line\nx\n');
    const read = await h.run(['query', "SELECT 1; SELECT 'a'::INTEGER"]);
    expect(asText(read.stderr)).toBe("docpipe: query: statement 2 of 2: Conversion Error: Could not convert string 'a' to INT32\n");
  });

  it('runs SQL that begins with a comment, typed as it is or after --', async () => {
    const plain = await h.run(['query', '-- top pages\nSELECT 1 AS x', '--format', 'csv']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('x\n1\n');
    const escaped = await h.run(['query', '--format', 'csv', '--', '-- the second\nSELECT 2 AS y']);
    expect(escaped.code, escaped.stderr).toBe(0);
    expect(escaped.stdout).toBe('y\n2\n');
    const two = await h.run(['query', '--', 'SELECT 1', 'SELECT 2']);
    expect(two.code).toBe(2);
    expect(asText(two.stderr)).toBe('docpipe: give the SQL as one argument (quote it): found 2\n');
    // A comment with no space after its dashes, and one after a yes/no option.
    const tight = await h.run(['query', '--write', '--top pages\nSELECT 3 AS z', '--format', 'csv']);
    expect(tight.code, tight.stderr).toBe(0);
    expect(tight.stdout).toBe('z\n3\n');
    // With an option before the command, and with a -- typed after it.
    const early = await h.run(['--format', 'csv', 'query', '-- early\nSELECT 4 AS w']);
    expect(early.stdout, early.stderr).toBe('w\n4\n');
    const dashed = await h.run(['query', '-- dashed\nSELECT 5 AS v', '--format', 'csv', '--']);
    expect(dashed.stdout, dashed.stderr).toBe('v\n5\n');
    // One argument is the SQL: a second is refused.
    const stray = await h.run(['query', 'SELECT 1', '-- a note']);
    expect(stray.code).toBe(2);
    expect(asText(stray.stderr)).toBe('docpipe: give the SQL as one argument (quote it): found 2\n');
  });

  it('rejects unknown commands and options with exit 2', async () => {
    expect((await h.run(['frobnicate'])).code).toBe(2);
    const unknown = await h.run(['export', 'visitors', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02', '--colour']);
    expect(unknown.code).toBe(2);
    expect(asText(unknown.stderr)).toMatch(/colour/);
    const metric = await h.run(['export', 'sessions', '--project', 'docs', '--from', '2026-03-01', '--to', '2026-03-02']);
    expect(metric.code).toBe(2);
    expect(asText(metric.stderr)).toMatch(/sessions/);
  });

  it('works as `npx docpipe` from a fresh build', () => {
    const help = spawnSync('npx', ['docpipe', '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    for (const command of ['export', 'sync', 'query', 'jobs', 'sandbox']) expect(help.stdout).toContain(`docpipe ${command}`);
    const bad = spawnSync(process.execPath, ['bin/docpipe.js', 'sandbox', '--paths', '0'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(asText(bad.stderr).trim()).toBe("docpipe: invalid --paths '0': expected a whole number >= 1");
  });

  it('reads the key from --api-key-file, and refuses an empty one', async () => {
    const keyFile = join(h.dir, 'key');
    writeFileSync(keyFile, 'mint_sandbox_local_key\n');
    const ok = await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-03', '--to', '2026-03-04', '--api-key-file', keyFile], { withKey: false });
    expect(ok.code).toBe(0);
    writeFileSync(keyFile, '\n');
    const empty = await h.run(['export', 'views', '--project', 'docs', '--from', '2026-03-03', '--to', '2026-03-04', '--api-key-file', keyFile], { withKey: false });
    expect(empty.code).toBe(2);
    expect(asText(empty.stderr)).toMatch(/--api-key-file '.*key' is empty/);
  });

  it('an --api-key-file on the command line wins over a DOCPIPE_API_KEY in the environment', async () => {
    const keyFile = join(h.dir, 'right.key');
    writeFileSync(keyFile, 'mint_sandbox_local_key\n');
    const args = ['bin/docpipe.js', 'export', 'views', '--project', 'docs', '--from', '2026-03-03', '--to', '2026-03-04', '--base-url', h.sandbox.url];
    // A real process (the sandbox answers from this one, so not spawnSync), with a wrong key in its environment.
    const run = (extra: string[]): Promise<{ code: number | null; out: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [...args, ...extra], { env: { ...process.env, DOCPIPE_API_KEY: 'mint_wrong_key' } });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.once('exit', (code) => resolve({ code, out }));
      });
    const withFile = await run(['--api-key-file', keyFile, '--db', join(h.dir, 'keys-1.duckdb')]);
    expect(withFile.code, withFile.out).toBe(0);
    // Without the file, the environment's key is the one sent (and refused).
    const fromEnv = await run(['--db', join(h.dir, 'keys-2.duckdb')]);
    expect(fromEnv.code, fromEnv.out).toBe(1);
    expect(fromEnv.out).toMatch(/401/);
  });

  it('ignores a DOCPIPE_ variable of an option the command does not have; a typed unknown option is still an error', () => {
    const file = join(h.dir, 'p2.txt');
    writeFileSync(file, 'hello\n');
    // A cron environment shared by a sync (--wait) and this batch, and a variable of nothing.
    const env = { ...process.env, DOCPIPE_PROJECT: 'docs', DOCPIPE_DB: join(h.dir, 'env2.duckdb'), DOCPIPE_WAIT: 'true', DOCPIPE_SOMETHING_ELSE: '1' };
    const ok = spawnSync(process.execPath, ['bin/docpipe.js', 'jobs', 'submit', file, '--dry-run'], { encoding: 'utf8', env });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/1 would be submitted/);
    const typed = spawnSync(process.execPath, ['bin/docpipe.js', 'jobs', 'submit', file, '--dry-run', '--wait'], { encoding: 'utf8', env });
    expect(typed.status).toBe(2);
    expect(asText(typed.stderr).trim()).toBe('docpipe: Unknown argument: wait');
  });

  it('reads options from DOCPIPE_ variables', () => {
    const file = join(h.dir, 'p.txt');
    writeFileSync(file, 'hello\n');
    const result = spawnSync(process.execPath, ['bin/docpipe.js', 'jobs', 'submit', file, '--dry-run'], {
      encoding: 'utf8',
      env: { ...process.env, DOCPIPE_PROJECT: 'docs', DOCPIPE_DB: join(h.dir, 'env.duckdb') },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/1 would be submitted/);
  });
});
