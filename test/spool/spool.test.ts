/**
 * The walk file: one append-only file a window walk (walk, owner, page and done lines). Pure
 * parsing, then the file operations on a real temp dir.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WalkTakenOverError } from '../../src/core/errors.js';
import { processStart, thisProcess } from '../../src/core/process-identity.js';
import { parseWalkFile, removeIfUnchanged, Spool, SpoolClaim, wellFormedJson, type SpoolWalk, type CompletedWalk } from '../../src/spool/spool.js';

const line = (record: unknown): string => `${JSON.stringify(record)}\n`;
const state = { walk: 1, startedAt: 5, pagesBefore: 0, requestsBefore: 0 };
const page = (n: number, path = `/p${n}`): string => line({ page: n, body: { visitors: [{ path }] } });
const done = { rows: 2 } as unknown as CompletedWalk;

describe('parseWalkFile', () => {
  it('reads state, latest owner, pages in order and the end', () => {
    const text = line({ walk: state }) + line({ owner: { pid: 1, host: 'a' } }) + page(0) + line({ owner: { pid: 2, host: 'b' } }) + page(1) + line({ done });
    const file = parseWalkFile(text);
    expect(file).toMatchObject({ state, owner: { pid: 2, host: 'b' }, done, torn: false, end: Buffer.byteLength(text) });
    expect(file.pages.map((p) => p.index)).toEqual([0, 1]);
    expect(text.slice(file.pageStarts[1]!)).toBe(page(1) + line({ done }));
    expect(text.slice(file.doneStart!)).toBe(line({ done }));
  });

  it('stops at a torn tail: a line without its line break, a line that does not parse, a page out of sequence', () => {
    const whole = line({ walk: state }) + page(0);
    for (const tail of [page(1).slice(0, -1), page(1).slice(0, 20) + '\n' + page(2), page(2)]) {
      const file = parseWalkFile(whole + tail);
      expect(file.pages).toHaveLength(1);
      expect(file.torn).toBe(true);
      expect(file.end).toBe(Buffer.byteLength(whole));
    }
  });

  it('counts bytes, not characters, for the cut (paths need not be ASCII)', () => {
    const text = line({ walk: state }) + page(0, '/über/日本') + page(1);
    const file = parseWalkFile(text);
    expect(Buffer.from(text).subarray(file.pageStarts[1]!).toString()).toBe(page(1));
  });

  it('skips lines of a kind it does not know, and a walk line starts the walk afresh', () => {
    const file = parseWalkFile(line({ walk: state }) + page(0) + line({ note: 'from a later docpipe' }) + line({ walk: { ...state, walk: 2 } }) + page(0, '/new'));
    expect(file.torn).toBe(false);
    expect(file.state?.walk).toBe(2);
    expect(file.pages.map((p) => p.body)).toEqual([{ visitors: [{ path: '/new' }] }]);
  });
});

describe('SpoolWalk', () => {
  let dir: string;
  let walk: SpoolWalk;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'docpipe-spool-'));
    walk = new Spool(dir).walk({ metric: 'visitors', projectId: 'a/b' }, { start: '2026-03-01', end: '2026-03-02' });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('claims a new walk with one file holding its owner; a live process elsewhere keeps its walk', () => {
    expect(walk.claim()).toBe(true);
    expect(walk.pagesFile).toBe(join(dir, 'walks', 'visitors', 'a%2Fb', '2026-03-01_2026-03-02.jsonl'));
    expect(walk.owner()).toEqual(thisProcess());
    walk.close();
    // The parent process (alive) took it meanwhile.
    const parent = { pid: process.ppid, host: hostname(), ...(processStart(process.ppid) ? { start: processStart(process.ppid) } : {}) };
    appendFileSync(walk.pagesFile, line({ owner: parent }));
    expect(walk.claim()).toBe(false);
    // Gone: it can be taken over.
    appendFileSync(walk.pagesFile, line({ owner: { pid: 999_999, host: hostname() } }));
    expect(walk.claim()).toBe(true);
    expect(walk.owner()?.pid).toBe(process.pid);
    walk.close();
    walk.release();
    if (parent.start !== undefined) {
      // A process that is gone, whose pid a live process (the parent) has now: taken over.
      appendFileSync(walk.pagesFile, line({ owner: { ...parent, start: `1.${parent.start.split('.')[1]}` } }));
      expect(walk.claim()).toBe(true);
      expect(walk.owner()).toEqual(thisProcess());
    }
  });

  it('a claim reads the owner and writes its own under a lock file: while another live process holds it, the walk is busy', () => {
    const lock = `${walk.pagesFile}.claim`;
    mkdirSync(dirname(lock), { recursive: true });
    // The parent process (alive) is claiming this window at this moment.
    writeFileSync(lock, line({ owner: { pid: process.ppid, host: hostname() } }));
    expect(walk.claim()).toBe(false);
    expect(existsSync(walk.pagesFile)).toBe(false);
    // One left by a process that is gone is taken, and removed once the claim is written.
    writeFileSync(lock, line({ owner: { pid: 999_999, host: hostname() } }));
    expect(walk.claim()).toBe(true);
    expect(walk.owner()?.pid).toBe(process.pid);
    expect(existsSync(lock)).toBe(false);
  });

  it('a walk claimed fresh starts without reading its file back; a later claim reads what it left', () => {
    expect(walk.claim()).toBe(true);
    expect(walk.state()).toBeNull();
    walk.begin(state);
    walk.writePage(0, '{"visitors":[]}');
    walk.close();
    expect(parseWalkFile(readFileSync(walk.pagesFile, 'utf8'))).toMatchObject({ owner: { pid: process.pid }, state, torn: false });
    walk.release();
    const again = new Spool(dir).walk({ metric: 'visitors', projectId: 'a/b' }, { start: '2026-03-01', end: '2026-03-02' });
    expect(again.claim()).toBe(true);
    expect(again.state()).toEqual(state);
    expect(again.recover()).toHaveLength(1);
    again.release();
  });

  it('another run of this process holding the walk keeps it until it lets go of it or removes it', () => {
    const sameWindow = (): SpoolWalk => new Spool(dir).walk({ metric: 'visitors', projectId: 'a/b' }, { start: '2026-03-01', end: '2026-03-02' });
    expect(walk.claim()).toBe(true);
    // The owner line names this process either way: only the process's own record tells the runs apart.
    const second = sameWindow();
    expect(second.heldByOtherRun()).toBe(true);
    expect(second.claim()).toBe(false);
    expect(walk.claim()).toBe(true);
    walk.release();
    expect(second.claim()).toBe(true);
    expect(walk.heldByOtherRun()).toBe(true);
    second.remove();
    const third = sameWindow();
    expect(third.heldByOtherRun()).toBe(false);
    expect(third.claim()).toBe(true);
    third.release();
  });

  it('appends pages and the end; truncate keeps the first pages and the latest owner', () => {
    walk.claim();
    walk.begin(state);
    walk.writePage(0, '{"visitors":[{"path":"/a"}]}');
    walk.writePage(1, '{"visitors":[{"path":"/b"}]}');
    walk.complete(done);
    expect(walk.completed()).toEqual(done);
    walk.truncate(1);
    expect(walk.completed()).toBeNull();
    expect(walk.pages()).toHaveLength(1);
    expect(walk.owner()?.pid).toBe(process.pid);
    expect(walk.state()).toEqual(state);
  });

  it('cuts a torn tail before the next append, so that the page lands on a line of its own', () => {
    walk.begin(state);
    walk.writePage(0, '{"visitors":[]}');
    walk.close();
    appendFileSync(walk.pagesFile, '{"page":1,"body":{"visi');
    expect(walk.recover()).toHaveLength(1);
    walk.writePage(1, '{"visitors":[]}');
    walk.close();
    expect(walk.pages()).toHaveLength(2);
    expect(readFileSync(walk.pagesFile, 'utf8').endsWith('{"page":1,"body":{"visitors":[]}}\n')).toBe(true);
  });

  it('begin on a walk with pages starts a new file with the state and the owner', () => {
    walk.claim();
    walk.begin(state);
    walk.writePage(0, '{"visitors":[]}');
    walk.begin({ ...state, walk: 2 });
    const file = parseWalkFile(readFileSync(walk.pagesFile, 'utf8'));
    expect(file).toMatchObject({ state: { walk: 2 }, owner: { pid: process.pid }, pages: [], done: null });
  });

  it('a claim is one run\'s: another run of this process or a live process keeps it, one left by a process that is gone is taken over', () => {
    const path = join(dir, 'thread-1.claim');
    const [a, b] = [new SpoolClaim(path, dir), new SpoolClaim(path, dir)];
    expect(a.take()).toBe(true);
    expect(b.take()).toBe(false);
    a.release();
    // The file stays, naming this process: a later run of it takes it over.
    expect(existsSync(path)).toBe(true);
    expect(b.take()).toBe(true);
    b.remove();
    expect(existsSync(path)).toBe(false);
    writeFileSync(path, line({ owner: { pid: process.ppid, host: hostname() } }));
    expect(a.take()).toBe(false);
    expect(readFileSync(path, 'utf8')).toContain(`"pid":${process.ppid}`);
    writeFileSync(path, line({ owner: { pid: 999_999, host: hostname() } }));
    expect(a.take()).toBe(true);
    expect(readFileSync(path, 'utf8')).toContain(`"pid":${process.pid}`);
    a.remove();
    // The parent's pid, but not the parent (it started at another time in this boot): a process that is gone.
    writeFileSync(path, line({ owner: { pid: process.ppid, host: hostname(), start: `1.${thisProcess().start?.split('.').slice(1).join('.')}` } }));
    expect(a.take()).toBe(process.platform === 'linux');
    a.remove();
  });

  it('a claim left empty (its creator killed between creating and writing it) is taken over after a short wait, not left for seconds', () => {
    const path = join(dir, 'thread-4.claim');
    writeFileSync(path, '');
    const started = Date.now();
    const claim = new SpoolClaim(path, dir);
    expect(claim.take()).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(readFileSync(path, 'utf8')).toContain(`"pid":${process.pid}`);
    claim.remove();
    // And the walk's own claim lock: an empty one does not keep the window from the next run.
    mkdirSync(dirname(walk.pagesFile), { recursive: true });
    writeFileSync(`${walk.pagesFile}.claim`, '');
    expect(walk.claim()).toBe(true);
    walk.remove();
  });

  it('two runs that judge one dead claim at once do not both take it: the second leaves the claim the first made', () => {
    const path = join(dir, 'thread-3.claim');
    const dead = line({ owner: { pid: 999_999, host: hostname() } });
    writeFileSync(path, dead);
    // Run B read the dead claim and judged it; before it set it aside, run C (here the parent
    // process, alive) set it aside and made its own.
    const made = line({ owner: { pid: process.ppid, host: hostname() } });
    writeFileSync(path, made);
    expect(removeIfUnchanged(path, dead)).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(made);
    expect(readdirSync(dir).filter((f) => f.startsWith('thread-3'))).toEqual(['thread-3.claim']);
    // The claim it judged is still there: set aside and removed, for a claim of its own.
    writeFileSync(path, dead);
    expect(removeIfUnchanged(path, dead)).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('thread-3'))).toEqual([]);
  });

  it('a walk another run took over while this one was stopped gets nothing more from this one: grown, replaced or removed', () => {
    for (const change of ['grown', 'replaced', 'removed'] as const) {
      expect(walk.claim()).toBe(true);
      walk.begin(state);
      walk.writePage(0, '{"visitors":[]}');
      // Its own writes, however many, are its own.
      walk.writePage(1, '{"visitors":[]}');
      // The other run claims it (its owner line goes at the end of the file as it is), then it
      // may restart the walk (a new file in its place) or load it and remove it.
      const other = line({ owner: { pid: 1, host: 'pod-b', start: '7.cccccccc.5' } });
      appendFileSync(walk.pagesFile, other);
      if (change === 'replaced') {
        writeFileSync(`${walk.pagesFile}.new`, line({ walk: state }) + other);
        renameSync(`${walk.pagesFile}.new`, walk.pagesFile);
      }
      if (change === 'removed') rmSync(walk.pagesFile);
      const before = existsSync(walk.pagesFile) ? readFileSync(walk.pagesFile, 'utf8') : null;
      expect(() => walk.writePage(2, '{"visitors":[]}'), change).toThrow(WalkTakenOverError);
      rmSync(walk.pagesFile, { force: true });
      walk.release();
      if (before !== null) expect(before, change).toContain(other);
    }
  });

  it('a restart (drift) does not replace a walk another run took over', () => {
    expect(walk.claim()).toBe(true);
    walk.begin(state);
    walk.writePage(0, '{"visitors":[]}');
    const other = line({ owner: { pid: 1, host: 'pod-b', start: '7.cccccccc.5' } });
    appendFileSync(walk.pagesFile, other);
    expect(() => walk.begin({ ...state, walk: 2 })).toThrow(WalkTakenOverError);
    expect(readFileSync(walk.pagesFile, 'utf8').endsWith(other)).toBe(true);
  });

  it('a takeover after this run last let go of its file is seen too: after a restart, a cut, or a close', () => {
    const other = line({ owner: { pid: 1, host: 'pod-b', start: '7.cccccccc.5' } });
    for (const step of ['restart', 'cut', 'close'] as const) {
      expect(walk.claim()).toBe(true);
      walk.begin(state);
      walk.writePage(0, '{"visitors":[]}');
      walk.writePage(1, '{"visitors":[]}');
      // Each lets go of the open file: a restart replaces it, a cut truncates and reopens it.
      if (step === 'restart') walk.begin({ ...state, walk: 2 });
      if (step === 'cut') walk.truncate(1);
      if (step === 'close') walk.close();
      // Stopped here, while the next page was requested; another run takes the walk over.
      appendFileSync(walk.pagesFile, other);
      const next = step === 'restart' ? 0 : 1;
      expect(() => walk.writePage(next, '{"visitors":[]}'), step).toThrow(WalkTakenOverError);
      expect(readFileSync(walk.pagesFile, 'utf8').endsWith(other), step).toBe(true);
      rmSync(walk.pagesFile);
      walk.release();
    }
  });

  it('a walk or a claim another run took over stays when this run would remove it', async () => {
    const other = line({ owner: { pid: 1, host: 'pod-b', start: '7.cccccccc.5' } });
    for (const remove of [() => walk.remove(), () => walk.removeAsync()]) {
      expect(walk.claim()).toBe(true);
      walk.begin(state);
      walk.writePage(0, '{"visitors":[]}');
      appendFileSync(walk.pagesFile, other);
      await remove();
      expect(readFileSync(walk.pagesFile, 'utf8').endsWith(other)).toBe(true);
      rmSync(walk.pagesFile);
    }
    const path = join(dir, 'thread-2.claim');
    const claim = new SpoolClaim(path, dir);
    expect(claim.take()).toBe(true);
    writeFileSync(path, other);
    expect(claim.stillHeld()).toBe(false);
    claim.remove();
    expect(readFileSync(path, 'utf8')).toBe(other);
  });

  it('wellFormedJson: as JSON.parse reads the text, with lone surrogates (values and keys) as U+FFFD and pairs kept', () => {
    const text = '{"a":"x\\ud800y","a":"last","b":[{"\\udc00k":"\\ud83d\\ude00"}],"n":1e2}';
    expect(wellFormedJson(text)).toBe('{"a":"last","b":[{"\uFFFDk":"\u{1F600}"}],"n":1e2}');
    expect(wellFormedJson('{"path":"/caf\\ud83d"}')).toBe('{"path":"/caf\uFFFD"}');
    expect(() => wellFormedJson('{"torn":')).toThrow(SyntaxError);
    expect(() => wellFormedJson('[-]')).toThrow(SyntaxError);
  });

  it('wellFormedJson keeps every number as written (out of range, beyond a double\'s digits) and digits inside strings alone', () => {
    const text = '{"h":1e400,"big":12345678901234567890,"f":2.50,"z":-0,"a":[1,-2E-3,0],"p":"/a1-2\\"3","n":null,"t":true}';
    expect(wellFormedJson(text)).toBe(text);
    expect(wellFormedJson(' 7 ')).toBe('7');
    expect(wellFormedJson('{"k":1e400,"k":"\\ud800"}')).toBe('{"k":"\uFFFD"}');
  });

  it('a walk its run let go of can be claimed by another process while this one lives on (a library caller\'s)', () => {
    const spoolModule = pathToFileURL(fileURLToPath(new URL('../../dist/spool/spool.js', import.meta.url))).href;
    const dir = mkdtempSync(join(tmpdir(), 'docpipe-spool-'));
    try {
      const series = { metric: 'visitors', projectId: 'docs' } as const;
      const window = { start: '2026-03-01', end: '2026-03-02' };
      const walk = new Spool(dir).walk(series, window);
      expect(walk.claim()).toBe(true);
      walk.begin(state);
      walk.writePage(0, '{"visitors":[],"hasMore":true}');
      const script = `import { Spool } from ${JSON.stringify(spoolModule)};
        const walk = new Spool(process.argv[1]).walk(${JSON.stringify(series)}, ${JSON.stringify(window)});
        console.log(walk.claim() ? walk.pages().length : 'held');`;
      const other = (): string => execFileSync(process.execPath, ['--input-type=module', '-e', script, dir], { encoding: 'utf8' }).trim();
      expect(other()).toBe('held'); // this process holds it, and lives
      walk.release();
      expect(other()).toBe('1'); // let go: the other takes it over, with its page
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an in-memory database's spool goes when its process exits", () => {
    const spoolModule = pathToFileURL(fileURLToPath(new URL('../../dist/spool/spool.js', import.meta.url))).href;
    const script = `import { mkdirSync, writeFileSync } from 'node:fs';
      import { spoolDirFor } from ${JSON.stringify(spoolModule)};
      const dir = spoolDirFor(':memory:');
      mkdirSync(dir + '/walks/visitors', { recursive: true });
      writeFileSync(dir + '/walks/visitors/x.jsonl', '');
      console.log(dir);`;
    const spool = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
    expect(spool).toContain('docpipe-memory-spool-');
    expect(existsSync(spool)).toBe(false);
  });

  it('remove leaves no walk behind', async () => {
    walk.begin(state);
    walk.writePage(0, '{"visitors":[]}');
    await walk.removeAsync();
    expect(new Spool(dir).walks()).toEqual([]);
    // Removing a walk that is already gone (another remove, doctor --fix) is not an error.
    await expect(walk.removeAsync()).resolves.toBeUndefined();
    writeFileSync(join(dir, 'walks', 'visitors', 'a%2Fb', 'not-a-walk.jsonl'), '');
    expect(new Spool(dir).walks()).toEqual([]);
  });
});
