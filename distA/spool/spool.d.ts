import { type Metric, type Series, type Window, type Totals } from '../core/domain.js';
/** The spool folder of a database file (`:memory:` databases get one per process). */
export declare function spoolDirFor(dbPath: string): string;
/** A project id as one safe folder name (ids are the API's, not ours: `/`, `.` and `..` included). */
export declare function encodeSegment(value: string): string;
/** Writes a file so that it appears whole or not at all. */
export declare function writeFileAtomic(path: string, text: string): void;
/** Whether a process is alive on this host (a process we may not signal is alive). */
export declare function isProcessAlive(pid: number): boolean;
export interface Owner {
    pid: number;
    host: string;
}
/** Whether an owner record names a live process other than this one. */
export declare function isLiveOther(owner: Owner | null): boolean;
/** The state of a walk in progress, rewritten when a walk starts or restarts. */
export interface WalkState {
    /** 1 for the first walk; a drift restart makes the next. */
    walk: number;
    /** When the current walk's first page was requested (ms). */
    startedAt: number;
    /** Pages and requests spent on earlier walks of this window (and earlier runs). */
    pagesBefore: number;
    requestsBefore: number;
}
/** A walk that reached its end: what the loader needs beside the page files. */
export interface CompletedWalk {
    metric: Metric;
    projectId: string;
    window: Window;
    /** When the final walk started: the time the data is as of. */
    fetchedAt: number;
    runId: string;
    /**
     * The window-level numbers of the walk's pages: human/ai/total (visitors, views),
     * totalSearches (searches), web/api/other/total (caller stats), none for the rest.
     */
    totals: Totals;
    /** Distinct row identities: paths, search queries or event ids (the rows the window will have). */
    rows: number;
    pages: number;
    requests: number;
    walks: number;
    warnings: string[];
    /** The final walk saw a path twice: the loader keeps each path's first copy. */
    repeatedPaths: boolean;
}
/** One spooled page: its place in the walk and its body, parsed as JSON (not yet checked). */
export interface SpooledPage {
    index: number;
    body: unknown;
}
/** A walk file as far as it is whole, with the byte offsets a cut needs. */
export interface WalkFile {
    state: WalkState | null;
    owner: Owner | null;
    pages: SpooledPage[];
    done: CompletedWalk | null;
    /** Byte offset where each page's line starts. */
    pageStarts: number[];
    /** Byte offset where the done line starts (null: none). */
    doneStart: number | null;
    /** Byte offset where the last owner line starts (null: none). */
    ownerStart: number | null;
    /** Bytes of whole lines; the file is torn when it has more. */
    end: number;
    torn: boolean;
}
/** Pure: reads a walk file's text as far as it is whole (see the format above). */
export declare function parseWalkFile(text: string): WalkFile;
/** One window's walk in the spool: its walk file (or the folder docpipe 0.2.0 left). */
export declare class SpoolWalk {
    /** The folder of the window's project: the walk file is in it. */
    readonly dir: string;
    readonly series: Series;
    readonly window: Window;
    /** The walk file, open for appending while this process writes to it. */
    private fd;
    /**
     * Set when `claim` created the file (it holds only this process's owner line) until the
     * walk's first line goes in: `state` and `begin` then need not read it back (on this
     * machine's disk, an open cost about 0.2 ms; three a window showed in profiles).
     */
    private fresh;
    constructor(
    /** The folder of the window's project: the walk file is in it. */
    dir: string, series: Series, window: Window);
    private get name();
    /** The walk file: the loader reads its page lines (other lines have no page). */
    get pagesFile(): string;
    /** The folder docpipe 0.2.0 kept the walk in (walk.json, owner, pages.jsonl, done.json). */
    get legacyDir(): string;
    /** The walk as on disk (reading changes nothing). */
    read(): WalkFile;
    /** The spooled pages in walk order, as far as they are whole (reading changes nothing). */
    pages(): SpooledPage[];
    /**
     * The whole pages, for a walk about to resume: a torn tail (a line that does not parse or
     * is out of sequence) is cut off, so that the next page appends after the whole ones.
     */
    recover(): SpooledPage[];
    /** Appends page `index`: on disk (in the kernel's hands) when this returns. */
    writePage(index: number, body: string): void;
    private append;
    /** Closes the walk file (a later write reopens it). */
    close(): void;
    /** Keeps the first `count` pages and drops the rest, and the done line (a torn or invalid page ends what can be trusted). */
    truncate(count: number): void;
    /** Cuts the walk file (as `file` read it) at byte `at`, keeping its latest owner line. */
    private cut;
    state(): WalkState | null;
    /** Starts walk `state.walk` afresh: earlier pages go, the new state is recorded. */
    begin(state: WalkState): void;
    complete(walk: CompletedWalk): void;
    completed(): CompletedWalk | null;
    owner(): Owner | null;
    /** Takes the walk for this process, unless a live process holds it. */
    claim(): boolean;
    /**
     * A walk docpipe 0.2.0 left as a folder becomes a walk file with the same state, pages and
     * end (a live 0.2.0 process's walk is left alone), so every later step sees one format.
     */
    private upgradeLegacy;
    /** Removes the walk: its load committed, or it was discarded. */
    remove(): void;
    /**
     * `remove` on libuv's threads, off the event loop that fetches the next pages: one unlink
     * (`rm` would first lstat the path, with more of its work on the event loop).
     */
    removeAsync(): Promise<void>;
}
export declare class Spool {
    readonly root: string;
    constructor(root: string);
    get requestsDir(): string;
    walk(series: Series, window: Window): SpoolWalk;
    /** Every window walk in the spool (a 0.2.0 folder and a walk file of the same window count once). */
    walks(): SpoolWalk[];
}
