import { getEventListeners, once } from 'node:events';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseError, InterruptedError, UsageError } from '../../src/core/errors.js';
import { Database, StatementFailure } from '../../src/load/database.js';
import { STOP_GRACE_MS, Store } from '../../src/load/store.js';
import { holdFile } from '../cli/harness.js';

/** A fresh temporary folder for each test of the describe block that calls it, removed after the test. */
function tempDirEach(prefix: string): { readonly path: string } {
  const tmp = { path: '' };
  beforeEach(() => {
    tmp.path = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => rmSync(tmp.path, { recursive: true, force: true }));
  return tmp;
}

/** Files are attached to the process's one DuckDB instance, each under an alias of its own. */
describe('Database: files attached to one instance', () => {
  const tmp = tempDirEach('docpipe-db-');

  const currentDatabase = async (db: Database): Promise<string> =>
    String((await db.all<{ name: string }>('SELECT current_database() AS name'))[0]?.name);

  it('names a file by its stem, as DuckDB does when it opens the file itself', async () => {
    const db = await Database.open(join(tmp.path, 'analytics.duckdb'));
    try {
      expect(await currentDatabase(db)).toBe('analytics');
      await db.run('CREATE TABLE t (x INTEGER)');
      await db.run('INSERT INTO analytics.main.t (x) VALUES (1)');
      expect(await db.all('SELECT x FROM t')).toEqual([{ x: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('keeps files of the same stem apart, and a file named like the instance catalog', async () => {
    mkdirSync(join(tmp.path, 'a'));
    mkdirSync(join(tmp.path, 'b'));
    const a = await Database.open(join(tmp.path, 'a', 'docpipe.duckdb'));
    const b = await Database.open(join(tmp.path, 'b', 'docpipe.duckdb'));
    const memory = await Database.open(join(tmp.path, 'memory.duckdb'));
    // Named as DuckDB names such a file when it opens it itself.
    const main = await Database.open(join(tmp.path, 'main.duckdb'));
    const temp = await Database.open(join(tmp.path, 'a', 'temp.duckdb'));
    try {
      expect(await currentDatabase(a)).toBe('docpipe');
      expect(await currentDatabase(b)).toBe('docpipe_2');
      expect(await currentDatabase(memory)).toBe('memory_db');
      expect(await currentDatabase(main)).toBe('main_db');
      expect(await currentDatabase(temp)).toBe('temp_db');
      await Promise.all([main.close(), temp.close()]);
      for (const [db, value] of [[a, 'a'], [b, 'b'], [memory, 'm']] as const) {
        await db.run('CREATE TABLE t (v VARCHAR)');
        await db.run('INSERT INTO t (v) VALUES ($v)', { v: value });
      }
      expect(await a.all('SELECT v FROM t')).toEqual([{ v: 'a' }]);
      expect(await b.all('SELECT v FROM t')).toEqual([{ v: 'b' }]);
      expect(await memory.all('SELECT v FROM t')).toEqual([{ v: 'm' }]);
    } finally {
      await Promise.all([a.close(), b.close(), memory.close()]);
    }
    // Files named like the instance's own catalog and schemas open under another alias: the
    // name DuckDB gives main, system and temp (and 0.2.0, which let DuckDB open the file).
    for (const stem of ['main', 'pg_catalog', 'information_schema', 'system', 'temp']) {
      const db = await Database.open(join(tmp.path, `${stem}.duckdb`));
      try {
        expect(await currentDatabase(db)).toBe(`${stem}_db`);
        expect(await db.all(`SELECT count(*)::INTEGER AS n FROM runs`)).toEqual([{ n: 0 }]);
      } finally {
        await db.close();
      }
    }
    // Closed, the alias is free again.
    const again = await Database.open(join(tmp.path, 'b', 'docpipe.duckdb'));
    try {
      expect(await currentDatabase(again)).toBe('docpipe');
      expect(await again.all('SELECT v FROM t')).toEqual([{ v: 'b' }]);
    } finally {
      await again.close();
    }
  });

  it('sets what an open asks for, and puts the process-wide settings back for an open that does not', async () => {
    const settings = async (db: Database): Promise<{ threads: number; checkpoint: string; zone: string }> =>
      (await db.all<{ threads: number; checkpoint: string; zone: string }>(
        `SELECT current_setting('threads')::INTEGER AS threads, current_setting('checkpoint_threshold') AS checkpoint,
                current_setting('TimeZone') AS zone`,
      ))[0]!;
    const own = await Database.open(':memory:'); // an instance of its own: DuckDB's defaults
    const defaults = await settings(own);
    await own.close();
    const file = join(tmp.path, 'settings.duckdb');
    const exporter = await Database.open(file, { threads: 1, checkpointEachCommit: true });
    expect(await settings(exporter)).toEqual({ threads: 1, checkpoint: '0 bytes', zone: 'UTC' });
    await exporter.close();
    const reader = await Database.open(file, { readOnly: true });
    expect(await settings(reader)).toEqual({ ...defaults, zone: 'UTC' });
    await reader.close();
  });

  it("a store's hold(true) gives DuckDB all its threads until it is released (an export's last loads, after the fetching)", async () => {
    const own = await Database.open(':memory:');
    const all = (await own.all<{ threads: number }>(`SELECT current_setting('threads')::INTEGER AS threads`))[0]!.threads;
    await own.close();
    const store = new Store(join(tmp.path, 'threads.duckdb'), { threads: 1 });
    const threads = (): Promise<number> =>
      store.write(async (tx) => (await tx.all<{ n: number }>(`SELECT current_setting('threads')::INTEGER AS n`))[0]!.n);
    expect(await threads()).toBe(1);
    const release = await store.hold(true);
    try {
      expect(await threads()).toBe(all);
    } finally {
      await release();
    }
    expect(await threads()).toBe(1);
    const plain = await store.hold();
    try {
      expect(await threads()).toBe(1);
    } finally {
      await plain();
    }
  });

  it('schemaInBackground: a new file is open before its schema is made, and every statement comes after it', async () => {
    const file = join(tmp.path, 'new.duckdb');
    const created = await Database.open(file, { schemaInBackground: true });
    try {
      expect(created.isNew).toBe(true);
      // Queued behind the schema, not run before it.
      expect(await created.all('SELECT count(*)::INTEGER AS n FROM loaded_windows')).toEqual([{ n: 0 }]);
    } finally {
      await created.close();
    }
    const existing = await Database.open(file, { schemaInBackground: true });
    try {
      expect(existing.isNew).toBe(false);
    } finally {
      await existing.close();
    }
  });

  it('gives the file back on close: another process opens it read-write and finds the data', async () => {
    const file = join(tmp.path, 'shared.duckdb');
    const db = await Database.open(file);
    await db.run('CREATE TABLE t (x INTEGER)');
    await db.run('INSERT INTO t (x) VALUES (42)');
    await db.close();
    const script = `const {DuckDBInstance}=require('@duckdb/node-api');(async()=>{const i=await DuckDBInstance.create(${JSON.stringify(file)});` +
      `const c=await i.connect();const r=await c.runAndReadAll('SELECT x FROM t');await c.run('INSERT INTO t VALUES (43)');console.log(JSON.stringify(r.getRows()));})()`;
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim()).toBe('[[42]]');
    const reopened = await Database.open(file);
    try {
      expect(await reopened.all('SELECT x FROM t ORDER BY x')).toEqual([{ x: 42 }, { x: 43 }]);
    } finally {
      await reopened.close();
    }
  });

  it('a writer waits for a read-only handle of this process, and a reader for a read-write one: neither fails at once, nor shares the other\'s connection', async () => {
    const file = join(tmp.path, 'both.duckdb');
    const setup = await Database.open(file);
    await setup.run('CREATE TABLE t (x INTEGER)');
    await setup.run('INSERT INTO t (x) VALUES (1)');
    await setup.close();

    // A reader holds it for 300 ms: the writer waits, says so once, and goes on.
    const reader = await Database.open(file, { readOnly: true });
    const waits: string[] = [];
    const release = new Promise((resolve) => setTimeout(resolve, 300)).then(() => reader.close());
    const started = Date.now();
    const writer = await Database.open(file, { lockTimeoutMs: 10_000, onLockWait: (holder) => waits.push(holder) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(waits).toEqual(['a read-only handle of this process']);
    expect(writer.readOnly).toBe(false);
    await writer.run('INSERT INTO t (x) VALUES (2)');
    await release;

    // The writer holds it: a reader waits (it must not get the writer's connection, whose
    // statements could write), and after its timeout stops with DatabaseBusyError (exit 75).
    const refused = await Database.open(file, { readOnly: true, lockTimeoutMs: 200 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ name: 'DatabaseBusyError', exitCode: 75 });
    expect(String((refused as Error).message)).toMatch(/is open read-write in this process \(another handle\); waited 0 s, try again later/);
    const late = Database.open(file, { readOnly: true, lockTimeoutMs: 10_000 });
    setTimeout(() => void writer.close(), 200);
    const second = await late;
    try {
      expect(second.readOnly).toBe(true);
      await expect(second.run('DELETE FROM t')).rejects.toThrow();
      expect(await second.all('SELECT x FROM t ORDER BY x')).toEqual([{ x: 1 }, { x: 2 }]);
    } finally {
      await second.close();
    }
  });

  it('query leaves the instance as it found it: what the SQL attached is detached (its lock let go), tables it made in the engine catalog dropped', async () => {
    const file = join(tmp.path, 'main.duckdb');
    const other = join(tmp.path, 'other.duckdb');
    for (const path of [file, other]) {
      const db = await Database.open(path);
      await db.run('CREATE TABLE t (x INTEGER)');
      await db.close();
    }
    const sql = `ATTACH '${other}' AS o; USE memory; CREATE TABLE scratch AS SELECT 1 AS x; SELECT count(*)::INTEGER AS n FROM o.t`;
    for (let call = 1; call <= 2; call++) {
      const db = await Database.open(file, { readOnly: true });
      try {
        const results = await db.query(sql);
        expect(results.at(-1)?.rows, `call ${call}`).toEqual([{ n: 0 }]);
        // Back on its own file: an unqualified name is the file's.
        expect(await db.all('SELECT count(*)::INTEGER AS n FROM t')).toEqual([{ n: 0 }]);
      } finally {
        await db.close();
      }
    }
    // Another process can take the other file for writing: nothing holds it.
    const script = `const {DuckDBInstance}=require('@duckdb/node-api');(async()=>{const i=await DuckDBInstance.create(${JSON.stringify(other)});` +
      `const c=await i.connect();await c.run('INSERT INTO t VALUES (1)');console.log('ok');})()`;
    expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim()).toBe('ok');
  });

  it('query gives dates and timestamps as DuckDB prints them at any depth (a list of dates, a struct), other values as JavaScript', async () => {
    const db = await Database.open(join(tmp.path, 'dates.duckdb'));
    try {
      const [result] = await db.query(
        `SELECT DATE '2026-11-01' AS d, [DATE '2026-11-01', DATE '2026-11-02'] AS ds,
                {'at': TIMESTAMPTZ '2026-11-01 06:00:00+00', 'n': 2} AS s, 42::BIGINT AS n, 1.5::DOUBLE AS x`,
      );
      expect(result?.rows).toEqual([{ d: '2026-11-01', ds: ['2026-11-01', '2026-11-02'], s: { at: '2026-11-01 06:00:00+00', n: 2 }, n: 42n, x: 1.5 }]);
    } finally {
      await db.close();
    }
  });

  it('query gives a TIMESTAMPTZ in UTC whatever the machine\'s zone (a prompt rendered from it is the same on every host)', () => {
    // The zone is the process's from its start: each in a process of its own (the built code).
    const database = join(process.cwd(), 'dist/load/database.js');
    const script =
      `import(${JSON.stringify(database)}).then(async ({ Database }) => { const db = await Database.open(':memory:');` +
      `const [r] = await db.query("SELECT TIMESTAMPTZ '2026-11-24 12:25:51.913+00' AS t, [TIMESTAMPTZ '2026-01-01 00:00:00+00'] AS l, 'infinity'::TIMESTAMPTZ AS i");` +
      `console.log(JSON.stringify(r.rows)); await db.close(); })`;
    for (const zone of ['UTC', 'America/Los_Angeles', 'Pacific/Kiritimati']) {
      const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, TZ: zone } });
      expect(JSON.parse(out), zone).toEqual([{ t: '2026-11-24 12:25:51.913+00', l: ['2026-01-01 00:00:00+00'], i: 'infinity' }]);
    }
  });
});

/** A stop ends user SQL that is running, not only the wait after it: an analyst's query may run for minutes. */
describe('Database.query: a stop interrupts the statement running', () => {
  const tmp = tempDirEach('docpipe-interrupt-');

  it.each([':memory:', 'file'])('%s: rejects with InterruptedError soon after the abort, and the handle still works', async (kind) => {
    const db = await Database.open(kind === 'file' ? join(tmp.path, 'a.duckdb') : ':memory:');
    try {
      const controller = new AbortController();
      const started = Date.now();
      // Minutes of work on this machine, unless interrupted.
      const running = db.query('SELECT 1 AS one; SELECT sum(i) FROM range(1000000000000) t(i)', { signal: controller.signal });
      setTimeout(() => controller.abort(new Error('interrupted (test)')), 300);
      await expect(running).rejects.toThrow(/^interrupted \(test\): the SQL was stopped at statement 2 of 2$/);
      await expect(running).rejects.toBeInstanceOf(InterruptedError);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await db.query('SELECT 42 AS n'))[0]!.rows).toEqual([{ n: 42 }]);
      // Aborted already: nothing runs.
      await expect(db.query('SELECT 1', { signal: controller.signal })).rejects.toBeInstanceOf(InterruptedError);
    } finally {
      await db.close();
    }
  });
});

describe('Database.query: a stop while the query waits behind another handle', () => {
  const tmp = tempDirEach('docpipe-queued-');

  it('rejects at once, and its SQL never runs', async () => {
    const path = join(tmp.path, 'a.duckdb');
    const busy = await Database.open(path);
    const waiting = await Database.open(path);
    const busyStop = new AbortController();
    const stop = new AbortController();
    try {
      // The file's one connection runs the other handle's long statement.
      const long = busy.query('SELECT sum(i) FROM range(1000000000000) t(i)', { signal: busyStop.signal }).catch((e: unknown) => e);
      const queued = waiting.query('CREATE TABLE made (x INTEGER)', { signal: stop.signal });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const stopped = Date.now();
      stop.abort(new Error('interrupted (test)'));
      await expect(queued).rejects.toThrow(/^interrupted \(test\): the SQL was stopped before it ran$/);
      expect(Date.now() - stopped).toBeLessThan(1_000);
      busyStop.abort();
      expect(await long).toBeInstanceOf(InterruptedError);
      expect(await waiting.all("SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'made'")).toEqual([{ n: 0 }]);
    } finally {
      busyStop.abort();
      await busy.close();
      await waiting.close();
    }
  });
});

/** Two calls of one process opening a file another process holds: each waits on its own terms. */
describe('Database.open: two calls that wait for the same held file', () => {
  const tmp = tempDirEach('docpipe-db-two-');

  it("one call's stop or shorter lock wait does not end the other's wait; a stop of the one joining ends its wait at once", async () => {
    const file = join(tmp.path, 'x.duckdb');
    await Database.with(file, {}, () => Promise.resolve());
    const holder = await holdFile(file);
    const settled = <T>(p: Promise<T>): Promise<{ ok: T } | { error: unknown }> => p.then((ok) => ({ ok }), (error: unknown) => ({ error }));
    let released = false;
    try {
      // A first call stopped (its signal), another with no signal: the second goes on waiting.
      const stop = new AbortController();
      const first = settled(Database.open(file, { lockTimeoutMs: 60_000, signal: stop.signal }));
      const second = settled(Database.open(file, { lockTimeoutMs: 60_000 }));
      // A first call with a short wait, another with a long one.
      const short = settled(Database.open(file, { readOnly: false, lockTimeoutMs: 300 }));
      // A call joining the others, stopped: its wait ends at once; the others go on.
      const joinStop = new AbortController();
      const joining = settled(Database.open(file, { lockTimeoutMs: 60_000, signal: joinStop.signal }));
      setTimeout(() => stop.abort(), 200);
      setTimeout(() => joinStop.abort(), 250);
      const stopped = await first;
      expect(stopped).toMatchObject({ error: expect.any(InterruptedError) });
      expect(await joining).toMatchObject({ error: expect.any(InterruptedError) });
      expect(await short).toMatchObject({ error: expect.objectContaining({ name: 'DatabaseBusyError' }) });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.release();
      released = true;
      const opened = await second;
      expect(opened).toHaveProperty('ok');
      await (opened as { ok: Database }).ok.close();
    } finally {
      if (!released) await holder.release();
    }
  });

  it('calls that join an open of a free file get it, however short their lock wait or long (Infinity); closed, the file is free for another process', async () => {
    const file = join(tmp.path, 'y.duckdb');
    for (const [first, second] of [[Infinity, Infinity], [60_000, 0], [0, 0]] as const) {
      const both = await Promise.all([Database.open(file, { lockTimeoutMs: first }), Database.open(file, { lockTimeoutMs: second })]);
      for (const db of both) await db.close();
      // Another process takes the file at once: nothing of this process holds it any more.
      const holder = await holdFile(file);
      await holder.release();
    }
  });
});

describe('Database: failures a library caller can catch', () => {
  const tmp = tempDirEach('docpipe-handle-');

  it('every failure of user SQL is a DatabaseError: a StatementFailure naming the statement', async () => {
    const db = await Database.open(':memory:');
    try {
      const unparsed = await db.query('SELEC 1').catch((e: unknown) => e);
      expect(unparsed).toBeInstanceOf(StatementFailure);
      expect(unparsed).toBeInstanceOf(DatabaseError);
      expect((unparsed as Error).message).toMatch(/^Parser Error: syntax error at or near "SELEC"/);
      const second = await db.query('SELECT 1; SELECT * FROM no_such_table').catch((e: unknown) => e);
      expect(second).toBeInstanceOf(DatabaseError);
      expect(second).toMatchObject({ index: 1, count: 2 });
      expect((second as Error).message).toMatch(/^statement 2 of 2: Catalog Error: Table with name no_such_table does not exist/);
    } finally {
      await db.close();
    }
  });

  it('a closed handle refuses work, though another handle of the file keeps it open', async () => {
    const path = join(tmp.path, 'a.duckdb');
    const first = await Database.open(path);
    const second = await Database.open(path);
    await first.close();
    for (const work of [() => first.all('SELECT 42'), () => first.run('SELECT 42'), () => first.query('SELECT 42'), () => first.query('SELECT 42', { signal: AbortSignal.abort() }), () => first.transaction(async () => undefined)]) {
      await expect(work()).rejects.toThrow(new DatabaseError(`database ${path}: this handle is closed`));
    }
    expect(await second.all('SELECT 42 AS n')).toEqual([{ n: 42 }]);
    await second.close();
    await expect(second.all('SELECT 42')).rejects.toBeInstanceOf(DatabaseError);
  });
});

describe('Database.open: a new file is made whole or not at all', () => {
  const tmp = tempDirEach('docpipe-new-');
  const index = resolve('dist/index.js');

  /** Starts a process that makes `path` (docpipe's library, built), killed (SIGKILL) the moment the file appears there: its size then. */
  async function killedAtFirstSight(path: string): Promise<number | undefined> {
    const script = `const m = await import(${JSON.stringify(pathToFileURL(index).href)}); const db = await m.openDatabase(process.argv[1]); await db.close();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, path], { stdio: 'ignore' });
    const exited = once(child, 'exit');
    let size: number | undefined;
    for (;;) {
      if (existsSync(path)) {
        child.kill('SIGKILL');
        size = statSync(path).size;
        break;
      }
      if (child.exitCode !== null || child.signalCode !== null) break;
      await new Promise((r) => setImmediate(r));
    }
    await exited;
    return size;
  }

  it('a process killed as the file appears leaves one that opens, with its schema made by the next open; a file shorter than DuckDB\'s headers is named so (exit 2)', async () => {
    const sizes: (number | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      const path = join(tmp.path, `new-${i}.duckdb`);
      sizes.push(await killedAtFirstSight(path));
      const db = await Database.open(path);
      try {
        expect(await db.all('SELECT max(version) AS v FROM schema_version')).toEqual([{ v: expect.any(Number) }]);
      } finally {
        await db.close();
      }
    }
    // Seen at all, the file was whole: DuckDB's headers are 3 blocks of 4 KiB.
    expect(sizes.filter((s) => s !== undefined).length).toBeGreaterThan(0);
    expect(sizes.filter((s) => s !== undefined && s < 3 * 4096)).toEqual([]);
    // What docpipe 0.2 and earlier left when killed so (empty, or the start of DuckDB's headers): no data, and a message that says it.
    const whole = readFileSync(join(tmp.path, 'new-0.duckdb'));
    for (const [name, bytes] of [['empty', 0], ['cut', 4096], ['cut-more', 8192]] as const) {
      const short = join(tmp.path, `${name}.duckdb`);
      writeFileSync(short, whole.subarray(0, bytes));
      const refused = await Database.open(short).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toBe(
        `database '${short}' is ${bytes} bytes, too short to be a DuckDB database (its headers alone take 12288): ` +
          'a docpipe run killed while it created the file leaves one like it, with nothing in it; delete it and run again',
      );
    }
    // Any other short file is not called docpipe's: it may be the user's, mistyped as --db.
    const notes = join(tmp.path, 'notes.duckdb');
    writeFileSync(notes, 'not a database\n');
    expect(((await Database.open(notes).catch((e: unknown) => e)) as Error).message).toBe(`database '${notes}' is not a DuckDB database file`);
  });

  it('the new files of processes killed before they linked theirs into place go when the file is made, unless written within the minute', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const path = join(tmp.path, 'd.duckdb');
    const left = [`d.duckdb.${dead}.tmp`, `d.duckdb.${dead}.tmp.wal`, `d.duckdb.${dead + 1}.tmp`, 'other.duckdb.1.tmp'].map((n) => join(tmp.path, n));
    for (const file of left) writeFileSync(file, 'DUCK');
    const old = new Date(Date.now() - 120_000);
    for (const file of [left[0]!, left[1]!, left[3]!]) utimesSync(file, old, old);
    await (await Database.open(path)).close();
    expect(readdirSync(tmp.path).sort()).toEqual(['d.duckdb', `d.duckdb.${dead + 1}.tmp`, 'other.duckdb.1.tmp']);
  });

  it('a path that is a symbolic link leading nowhere yet: the file is made where it leads, in docpipe\'s format', async () => {
    mkdirSync(join(tmp.path, 'real'));
    const link = join(tmp.path, 'link.duckdb');
    symlinkSync(join('real', 'db.duckdb'), link);
    await (await Database.open(link)).close();
    const db = await Database.open(link, { readOnly: true });
    try {
      // DuckDB 1.3's dictionary of FSST strings: the storage format docpipe makes files in (its default would be 1.0's).
      const formats = await db.all<{ c: string }>(`SELECT DISTINCT compression AS c FROM pragma_storage_info('schema_version') WHERE compression LIKE '%FSST%'`);
      expect(formats).toEqual([{ c: 'DICT_FSST' }]);
    } finally {
      await db.close();
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(statSync(join(tmp.path, 'real', 'db.duckdb')).size).toBeGreaterThan(3 * 4096);
    expect(readdirSync(join(tmp.path, 'real'))).toEqual(['db.duckdb']);
  });
});

describe('Store: a stopped run still waits a moment to save', () => {
  const tmp = tempDirEach('docpipe-grace-');

  it(`a write waits for a held file until ${STOP_GRACE_MS} ms after the stop, counted from the stop (not from the write), and leaves no listener on the caller's signal`, async () => {
    const path = join(tmp.path, 'a.duckdb');
    const stop = new AbortController();
    const store = new Store(path, { signal: stop.signal, lockTimeoutMs: 60_000 });
    await store.write((tx) => tx.run('CREATE TABLE t (x INTEGER)'));
    store.beginSaving();
    expect(getEventListeners(stop.signal, 'abort')).toEqual([]);
    // Another handle holds the file (a reader's, in this process): a writer must wait for it.
    const reader = await Database.open(path, { readOnly: true });
    try {
      stop.abort(new InterruptedError('interrupted (test)'));
      const stoppedAt = Date.now();
      // The stop came between writes; the next write begins 3 s later.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await expect(store.write((tx) => tx.run('INSERT INTO t (x) VALUES (1)'))).rejects.toBeInstanceOf(InterruptedError);
      const waited = Date.now() - stoppedAt;
      expect(waited).toBeGreaterThanOrEqual(STOP_GRACE_MS - 100);
      expect(waited).toBeLessThan(STOP_GRACE_MS + 1_500);
    } finally {
      await reader.close();
    }
    // Once the file is free, the store's writes go through (within the grace the wait is over at once).
    await store.write((tx) => tx.run('INSERT INTO t (x) VALUES (2)'));
  }, 20_000);
});
