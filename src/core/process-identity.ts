/**
 * Which process wrote a record, and whether it is still at work. A pid alone cannot tell:
 * after a crash the pid is reused by another process sooner or later, and after a reboot
 * almost at once (cron's processes get the low pids a boot hands out). A record of a run
 * that is gone but whose pid lives on would hold its windows, threads and prompts forever.
 *
 * So a record also names the process's start: on Linux, the boot it ran in and its start
 * time since boot, in clock ticks (`/proc/<pid>/stat`), which no other process of that boot
 * shares with the same pid. Elsewhere, and in records written before docpipe kept it, the
 * start is unknown and the pid alone decides, as before.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** A process as records name it. */
export interface ProcessRef {
  pid: number;
  host: string;
  /** The process's start (`processStart`); absent when unknown. */
  start?: string;
}

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
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = fields[19]; // fields[0] is field 3 (the state)
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
}

/** A live process's start, `<ticks since boot>.<boot id>` (Linux); undefined when it cannot be read. */
export function processStart(pid: number): string | undefined {
  const boot = currentBoot();
  if (boot === null) return undefined;
  try {
    const ticks = startTicksFromStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return ticks === undefined ? undefined : `${ticks}.${boot}`;
  } catch {
    return undefined;
  }
}

let own: ProcessRef | undefined;

/** This process, as its records name it. */
export function thisProcess(): ProcessRef {
  if (own === undefined || own.pid !== process.pid) {
    const start = processStart(process.pid);
    own = { pid: process.pid, host: hostname(), ...(start === undefined ? {} : { start }) };
  }
  return own;
}

/**
 * Whether the process a record names is alive on this host: its pid is (a process we may not
 * signal is alive) and, when the record knows the start, it is the same process. A start that
 * cannot be read now counts as the same (alive): only a start seen to differ tells a reuse.
 */
export function isProcessAlive(pid: number, start?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (start === undefined) return true;
  const now = processStart(pid);
  return now === undefined || now === start;
}

/** Whether a record names this process (not only its pid: an earlier process may have had it). */
export function isThisProcess(ref: ProcessRef): boolean {
  const me = thisProcess();
  return ref.pid === me.pid && ref.host === me.host && (ref.start === undefined || me.start === undefined || ref.start === me.start);
}
