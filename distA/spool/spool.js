/**
 * The spool: received pages on disk beside the database (DESIGN rule 9), like dlt's load
 * packages. Every page body the API returns is written here before the next request, a
 * window is loaded from its spooled pages, and its spool is removed once the load commits.
 * A crash, a spent budget or a locked database therefore costs at most the request in
 * flight: the next run loads completed walks without a request and resumes the others.
 *
 *   <db>.spool/walks/<metric>/<project>/<start>_<end>.jsonl   one file a window's walk
 *   <db>.spool/requests/                                      the request journal (./request-journal.ts)
 *
 * A walk file is append-only JSON lines, one kind a line:
 *   {"walk": {...}}               the walk in progress: its number, when it started, what it cost before
 *   {"owner": {"pid", "host"}}    the process walking or loading it (the last such line counts)
 *   {"page": n, "body": <body>}   page n as received, in walk order
 *   {"done": {...}}               the walk reached hasMore=false: ready to load
 * Lines of other kinds are skipped (a later docpipe may add some). One file, appended to,
 * costs a few writes a window: docpipe 0.2.0 kept four files in a folder per window, and the
 * file creations, renames and folder removals took 0.1 to 0.4 s of the event loop's time per
 * 90 windows. Its folders are still read, and turned into a walk file when claimed.
 *
 * A body is written as received unless it holds a line break (only whitespace can), when it
 * is written compact so that a line stays a page. A line is whole only with its line break:
 * a line that does not parse, or a page out of sequence, is where a crash tore the file, and
 * it and everything after it are cut off before the next append. Nothing is fsynced: a killed
 * process loses nothing the kernel has, and a page torn by a power cut is fetched again.
 */
import { hostname, tmpdir } from 'node:os';
import { closeSync, existsSync, openSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, truncateSync, writeFileSync, writeSync, } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { METRICS } from '../core/domain.js';
/** The spool folder of a database file (`:memory:` databases get one per process). */
export function spoolDirFor(dbPath) {
    if (dbPath === ':memory:')
        return join(tmpdir(), `docpipe-memory-spool-${process.pid}`);
    return `${dbPath}.spool`;
}
/** A project id as one safe folder name (ids are the API's, not ours: `/`, `.` and `..` included). */
export function encodeSegment(value) {
    return encodeURIComponent(value).replace(/\./g, '%2E').replace(/\*/g, '%2A');
}
/** Writes a file so that it appears whole or not at all. */
export function writeFileAtomic(path, text) {
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, path);
}
/** Whether a process is alive on this host (a process we may not signal is alive). */
export function isProcessAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (error) {
        return error.code === 'EPERM';
    }
}
/** Whether an owner record names a live process other than this one. */
export function isLiveOther(owner) {
    if (!owner || (owner.pid === process.pid && owner.host === hostname()))
        return false;
    // A process on another host sharing the folder cannot be checked: treat it as live.
    return owner.host !== hostname() || isProcessAlive(owner.pid);
}
/** Pure: reads a walk file's text as far as it is whole (see the format above). */
export function parseWalkFile(text) {
    const file = { state: null, owner: null, pages: [], done: null, pageStarts: [], doneStart: null, ownerStart: null, end: 0, torn: false };
    let at = 0;
    while (at < text.length) {
        const newline = text.indexOf('\n', at);
        if (newline < 0)
            break; // no line break: torn
        const line = text.slice(at, newline);
        let record;
        try {
            const parsed = JSON.parse(line);
            record = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
        }
        catch {
            record = null;
        }
        if (record === null && line.trim() !== '')
            break;
        const start = file.end;
        if (record !== null) {
            if ('page' in record) {
                if (record.page !== file.pages.length || file.done !== null)
                    break;
                file.pageStarts.push(start);
                file.pages.push({ index: file.pages.length, body: record.body });
            }
            else if ('walk' in record) {
                // A walk line starts the walk afresh (begin rewrites the file when there is more).
                file.state = record.walk;
                file.pages = [];
                file.pageStarts = [];
                file.done = null;
                file.doneStart = null;
            }
            else if ('owner' in record) {
                file.owner = record.owner;
                file.ownerStart = start;
            }
            else if ('done' in record) {
                file.done = reviveDone(record.done);
                file.doneStart = start;
            }
        }
        file.end = start + Buffer.byteLength(line) + 1;
        at = newline + 1;
    }
    file.torn = at < text.length;
    return file;
}
const line = (record) => `${JSON.stringify(record)}\n`;
/**
 * The done line. A window's totals can be infinite (a count like `1e400` in the body), which
 * JSON cannot hold: they are spelled `"Infinity"` and `"-Infinity"`, so that a walk loaded
 * from the spool flags them `count_out_of_range`, as a walk loaded at once does, and not
 * `count_missing`.
 */
const doneLine = (walk) => line({ done: { ...walk, totals: spellTotals(walk.totals) } });
function spellTotals(totals) {
    if (!totals)
        return totals;
    return Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, v !== null && Number.isFinite(v) ? v : v === null || Number.isNaN(v) ? null : String(v)]));
}
function reviveDone(done) {
    const totals = done.totals;
    if (!totals)
        return done;
    const revive = (v) => (v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v);
    return { ...done, totals: Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, revive(v)])) };
}
const ownerLine = () => line({ owner: { pid: process.pid, host: hostname() } });
/** One window's walk in the spool: its walk file (or the folder docpipe 0.2.0 left). */
export class SpoolWalk {
    dir;
    series;
    window;
    /** The walk file, open for appending while this process writes to it. */
    fd;
    /**
     * Set when `claim` created the file (it holds only this process's owner line) until the
     * walk's first line goes in: `state` and `begin` then need not read it back (on this
     * machine's disk, an open cost about 0.2 ms; three a window showed in profiles).
     */
    fresh = false;
    constructor(
    /** The folder of the window's project: the walk file is in it. */
    dir, series, window) {
        this.dir = dir;
        this.series = series;
        this.window = window;
    }
    get name() {
        return `${this.window.start}_${this.window.end}`;
    }
    /** The walk file: the loader reads its page lines (other lines have no page). */
    get pagesFile() {
        return join(this.dir, `${this.name}.jsonl`);
    }
    /** The folder docpipe 0.2.0 kept the walk in (walk.json, owner, pages.jsonl, done.json). */
    get legacyDir() {
        return join(this.dir, this.name);
    }
    /** The walk as on disk (reading changes nothing). */
    read() {
        let text;
        try {
            text = readFileSync(this.pagesFile, 'utf8');
        }
        catch {
            return readLegacy(this.legacyDir) ?? parseWalkFile('');
        }
        return parseWalkFile(text);
    }
    /** The spooled pages in walk order, as far as they are whole (reading changes nothing). */
    pages() {
        return this.read().pages;
    }
    /**
     * The whole pages, for a walk about to resume: a torn tail (a line that does not parse or
     * is out of sequence) is cut off, so that the next page appends after the whole ones.
     */
    recover() {
        // Offsets are the walk file's: a 0.2.0 folder becomes one before it is read.
        this.upgradeLegacy();
        const file = this.read();
        if (file.torn)
            this.cut(file, file.end);
        return file.pages;
    }
    /** Appends page `index`: on disk (in the kernel's hands) when this returns. */
    writePage(index, body) {
        const text = body.includes('\n') || body.includes('\r') ? JSON.stringify(JSON.parse(body)) : body;
        this.append(`{"page":${index},"body":${text}}\n`);
    }
    append(text) {
        this.fresh = false;
        if (this.fd === undefined) {
            mkdirSync(this.dir, { recursive: true });
            this.fd = openSync(this.pagesFile, 'a');
        }
        writeSync(this.fd, text);
    }
    /** Closes the walk file (a later write reopens it). */
    close() {
        this.fresh = false;
        if (this.fd === undefined)
            return;
        closeSync(this.fd);
        this.fd = undefined;
    }
    /** Keeps the first `count` pages and drops the rest, and the done line (a torn or invalid page ends what can be trusted). */
    truncate(count) {
        this.upgradeLegacy();
        const file = this.read();
        this.cut(file, file.pageStarts[count] ?? file.doneStart ?? file.end);
    }
    /** Cuts the walk file (as `file` read it) at byte `at`, keeping its latest owner line. */
    cut(file, at) {
        this.close();
        try {
            truncateSync(this.pagesFile, at);
        }
        catch {
            return; // no file: nothing to cut
        }
        if (file.owner !== null && file.ownerStart !== null && file.ownerStart >= at)
            this.append(line({ owner: file.owner }));
    }
    state() {
        return this.fresh ? null : this.read().state;
    }
    /** Starts walk `state.walk` afresh: earlier pages go, the new state is recorded. */
    begin(state) {
        if (this.fresh) {
            this.append(line({ walk: state }));
            return;
        }
        this.upgradeLegacy();
        const file = this.read();
        if (file.pages.length === 0 && file.done === null && !file.torn) {
            this.append(line({ walk: state }));
            return;
        }
        // Earlier pages to drop: a new file with the state and the owner, in place at once.
        this.close();
        writeFileAtomic(this.pagesFile, line({ walk: state }) + (file.owner ? line({ owner: file.owner }) : ''));
    }
    complete(walk) {
        this.append(doneLine(walk));
        this.close();
    }
    completed() {
        return this.read().done;
    }
    owner() {
        return this.read().owner;
    }
    /** Takes the walk for this process, unless a live process holds it. */
    claim() {
        this.upgradeLegacy();
        this.close();
        try {
            mkdirSync(this.dir, { recursive: true });
            this.fd = openSync(this.pagesFile, 'ax');
        }
        catch {
            // the file is there: its owner decides
        }
        const created = this.fd !== undefined;
        if (!created) {
            const file = this.read();
            if (isLiveOther(file.owner))
                return false;
            if (file.torn)
                this.cut(file, file.end);
        }
        this.append(ownerLine());
        this.fresh = created;
        return true;
    }
    /**
     * A walk docpipe 0.2.0 left as a folder becomes a walk file with the same state, pages and
     * end (a live 0.2.0 process's walk is left alone), so every later step sees one format.
     */
    upgradeLegacy() {
        const legacy = readLegacy(this.legacyDir);
        if (legacy === null || isLiveOther(legacy.owner))
            return;
        if (!existsSync(this.pagesFile)) {
            const text = (legacy.state ? line({ walk: legacy.state }) : '') +
                (legacy.owner ? line({ owner: legacy.owner }) : '') +
                legacy.pages.map((p) => line({ page: p.index, body: p.body })).join('') +
                (legacy.done ? doneLine(legacy.done) : '');
            writeFileAtomic(this.pagesFile, text);
        }
        rmSync(this.legacyDir, { recursive: true, force: true });
    }
    /** Removes the walk: its load committed, or it was discarded. */
    remove() {
        this.close();
        rmSync(this.pagesFile, { force: true });
        rmSync(this.legacyDir, { recursive: true, force: true });
    }
    /**
     * `remove` on libuv's threads, off the event loop that fetches the next pages: one unlink
     * (`rm` would first lstat the path, with more of its work on the event loop).
     */
    async removeAsync() {
        this.close();
        await unlink(this.pagesFile).catch((error) => {
            if (error.code !== 'ENOENT')
                throw error;
        });
    }
}
/** A walk as docpipe 0.2.0 kept it: a folder with walk.json, owner, pages.jsonl and done.json. */
function readLegacy(dir) {
    if (!existsSync(dir))
        return null;
    let pagesText = '';
    try {
        pagesText = readFileSync(join(dir, 'pages.jsonl'), 'utf8');
    }
    catch {
        // no page yet
    }
    const file = parseWalkFile(pagesText);
    file.state = readJson(join(dir, 'walk.json'));
    file.owner = readJson(join(dir, 'owner'));
    file.done = file.torn ? null : readJson(join(dir, 'done.json'));
    return file;
}
function readJson(path) {
    try {
        return JSON.parse(readFileSync(path, 'utf8'));
    }
    catch {
        return null;
    }
}
function entries(dir) {
    try {
        return readdirSync(dir, { withFileTypes: true });
    }
    catch {
        return [];
    }
}
/** A walk file (`<start>_<end>.jsonl`) or a 0.2.0 walk folder (`<start>_<end>`). */
const WALK_NAME = /^(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})(\.jsonl)?$/;
export class Spool {
    root;
    constructor(root) {
        this.root = root;
    }
    get requestsDir() {
        return join(this.root, 'requests');
    }
    walk(series, window) {
        return new SpoolWalk(join(this.root, 'walks', series.metric, encodeSegment(series.projectId)), series, window);
    }
    /** Every window walk in the spool (a 0.2.0 folder and a walk file of the same window count once). */
    walks() {
        const found = new Map();
        for (const metric of METRICS) {
            const metricDir = join(this.root, 'walks', metric);
            for (const project of entries(metricDir)) {
                if (!project.isDirectory())
                    continue;
                for (const entry of entries(join(metricDir, project.name))) {
                    const match = WALK_NAME.exec(entry.name);
                    if (!match || (match[3] === undefined) !== entry.isDirectory())
                        continue;
                    const series = { metric, projectId: decodeURIComponent(project.name) };
                    const window = { start: match[1], end: match[2] };
                    found.set(`${metric}/${project.name}/${window.start}_${window.end}`, this.walk(series, window));
                }
            }
        }
        return [...found.values()];
    }
}
//# sourceMappingURL=spool.js.map