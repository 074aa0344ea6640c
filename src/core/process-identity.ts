/**
 * Which process wrote a record, and how to tell whether it is still at work. A pid alone
 * cannot tell:
 *   - after a crash the pid is reused by another process sooner or later, and after a reboot
 *     almost at once (cron's processes get the low pids a boot hands out);
 *   - a process in another container has its own pids (cron in Kubernetes or `docker run` is
 *     pid 1, or near it, every time) and usually its own host name, new each run.
 * A record of a run that is gone, taken for alive, would hold its windows, threads and
 * prompts forever.
 *
 * So a record also names the process's start (Linux): its start time since boot in clock
 * ticks (`/proc/<pid>/stat`), the boot it ran in and its pid namespace. A record of this
 * host, boot and namespace is checked by its pid and start, exactly. Any other (another
 * machine sharing the folder, another container, another boot) by the heartbeat the process
 * keeps in the spool (../spool/liveness.ts). Elsewhere than Linux, and in records written
 * before docpipe kept the start, the pid alone decides on this host, and a process on another
 * host cannot be told (taken for alive), as before.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** A process as records name it. */
export interface ProcessRef {
  pid: number;
  host: string;
  /** The process's start, `<ticks>.<boot>[.<pid namespace>]` (`thisProcess`); absent when unknown. */
  start?: string;
}

/** How a record's process can be told alive from here. */
export type ProcessCheck =
  /** It is this process. */
  | 'this'
  /** By its pid (and start, when known) on this host. */
  | 'pid'
  /** By its heartbeat in the spool: another host, container or boot. */
  | 'heartbeat'
  /** It cannot be told (another host, and no start recorded). */
  | 'unknown';

let bootId: string | null | undefined;

/** The first 8 hex digits of this boot's id (Linux); null elsewhere. */
function currentBoot(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replace(/[^0-9a-f]/gi, '').slice(0, 8).toLowerCase() || null;
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/**
 * Pure: a process's start time since boot (clock ticks) from the text of `/proc/<pid>/stat`:
 * field 22, counted after the command name, which is in parentheses and may hold spaces and
 * parentheses itself.
 */
export function startTicksFromStat(stat: string): string | undefined {
  const ticks = statFields(stat)[19]; // [0] is field 3 (the state)
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
}

/** Pure: the fields of `/proc/<pid>/stat` from field 3 (the state: `R`, `S`, `Z`, ...) on. */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The text of `/proc/<pid>/stat`; undefined when it cannot be read (no such process, not Linux). */
function readStat(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Pure: the parts of a start. */
export function parseStart(start: string): { ticks: string; boot: string; namespace?: string } {
  const [ticks = '', boot = '', namespace] = start.split('.');
  return { ticks, boot, ...(namespace ? { namespace } : {}) };
}

/** A process on this host and in this pid namespace: `<ticks>.<boot>`; undefined when it cannot be read. */
export function processStart(pid: number): string | undefined {
  return startOf(readStat(pid));
}

/** `<ticks>.<boot>` from a stat text; undefined when either cannot be read. */
function startOf(stat: string | undefined): string | undefined {
  const boot = currentBoot();
  const ticks = stat === undefined ? undefined : startTicksFromStat(stat);
  return boot === null || ticks === undefined ? undefined : `${ticks}.${boot}`;
}

let bootTimeMs: number | null | undefined;

/**
 * When a process on this host started, in ms since the epoch (Linux: the boot time in
 * `/proc/stat` plus its start in clock ticks, 100 a second); undefined when it cannot be told.
 */
export function processStartedAtMs(pid: number): number | undefined {
  const ticks = startTicksFromStat(readStat(pid) ?? '');
  if (ticks === undefined) return undefined;
  if (bootTimeMs === undefined) {
    try {
      const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
      bootTimeMs = btime === undefined ? null : Number(btime) * 1000;
    } catch {
      bootTimeMs = null;
    }
  }
  return bootTimeMs === null ? undefined : bootTimeMs + Number(ticks) * 10;
}

/**
 * How much later than a record a process must have started to be taken for another one: a
 * process's start is worked out from the clock now (the boot time /proc/stat gives moves with
 * the clock), the record's time was the clock then, so a clock set forward meanwhile (NTP
 * stepping it) makes a process look younger than it is. Ten minutes absorbs such a step; a
 * pid is seldom reused that soon.
 */
const CLOCK_STEP_MS = 10 * 60_000;

/**
 * Whether the live process at `pid` (on this host) cannot be the one that made a record naming
 * no process start (docpipe 0.2.0's records, or a system where the start cannot be read):
 * it is this process, which records its start (the record is an earlier process's), or (Linux)
 * it started well after the record was made (`recordedAtMs`; see CLOCK_STEP_MS): a process
 * cannot have made a record older than itself, so the pid was reused, by any program, a later
 * docpipe too. Otherwise its pid decides: a live process is never taken for gone on a guess.
 */
export function pidTakenSince(pid: number, recordedAtMs?: number | null): boolean {
  if (pid === process.pid) return thisProcess().start !== undefined;
  if (recordedAtMs === undefined || recordedAtMs === null) return false;
  const started = processStartedAtMs(pid);
  return started !== undefined && started > recordedAtMs + CLOCK_STEP_MS;
}

/** This process's pid namespace (its inode number); undefined when it cannot be read. */
function ownNamespace(): string | undefined {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
}

let own: ProcessRef | undefined;

/** This process, as its records name it. */
export function thisProcess(): ProcessRef {
  if (own === undefined || own.pid !== process.pid) {
    const started = processStart(process.pid);
    const namespace = ownNamespace();
    const start = started === undefined ? undefined : namespace === undefined ? started : `${started}.${namespace}`;
    own = { pid: process.pid, host: hostname(), ...(start === undefined ? {} : { start }) };
  }
  return own;
}

/**
 * Whether a process with this pid is alive on this host (a process we may not signal is
 * alive) and, when the start is given, is the one that started then. A start that cannot be
 * read now counts as the same: only a start seen to differ tells a reused pid.
 */
export function isProcessAlive(pid: number, start?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readStat(pid);
  // A zombie has exited: only its parent has not collected it yet (a container's first
  // process that is no init, say), and it takes signals like a live one.
  if (stat !== undefined && statFields(stat)[0] === 'Z') return false;
  if (start === undefined) return true;
  const now = startOf(stat);
  if (now === undefined) return true;
  const { ticks, boot } = parseStart(start);
  return now === `${ticks}.${boot}`;
}

/** Whether a record names this process (not only its pid: an earlier process may have had it). */
export function isThisProcess(ref: ProcessRef): boolean {
  return checkFor(ref, thisProcess()) === 'this';
}

/**
 * Pure: how to tell whether the process of a record is alive, from the process `me`: by its
 * pid only on this host, in this boot and pid namespace; by its heartbeat wherever it ran,
 * when it recorded its start; not at all on another host otherwise.
 */
export function checkFor(ref: ProcessRef, me: ProcessRef): ProcessCheck {
  if (ref.start === undefined || me.start === undefined) {
    if (ref.host !== me.host) return 'unknown';
    return ref.pid === me.pid && (ref.start === undefined || ref.start === me.start || me.start === undefined) ? 'this' : 'pid';
  }
  const [theirs, mine] = [parseStart(ref.start), parseStart(me.start)];
  const here =
    ref.host === me.host && theirs.boot === mine.boot && (theirs.namespace === undefined || mine.namespace === undefined || theirs.namespace === mine.namespace);
  if (!here) return 'heartbeat';
  return ref.pid === me.pid && theirs.ticks === mine.ticks ? 'this' : 'pid';
}
