/**
 * Whether the process a record names (a walk's owner, a claim's, a request journal's, a
 * run's) is alive, as told from this process; and the heartbeat that lets it be told.
 *
 * A process's sign of life in a spool, for the processes that cannot tell it by its pid
 * (../core/process-identity.ts): another machine sharing the folder, another container (its
 * own pids, and a host name of its own each run, as a Kubernetes CronJob's pod or a
 * `docker run` gets), another boot. A process at work on a spool keeps the file
 * `<spool>/alive/<pid>+<start>` and touches it every 30 s, from a timer that does not hold the
 * process open; a file not touched for 5 minutes is of a process that is gone (killed, out of
 * memory, its machine down). The file goes when the process exits; one left by a crash is
 * swept away a day later.
 *
 * Times are the file system's (mtime) against this machine's clock: a shared folder on
 * another machine whose clock is minutes off would make live processes look gone, or gone
 * ones live for longer; 5 minutes leaves room for ordinary skew.
 */
import { existsSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkFor, isProcessAlive, pidTakenSince, thisProcess, type ProcessRef } from '../core/process-identity.js';
import { makeFolders, namesIn } from '../core/files.js';

export const HEARTBEAT_INTERVAL_MS = 30_000;
export const HEARTBEAT_STALE_MS = 5 * 60_000;
/** Heartbeat files older than this are swept when a process starts beating. */
const SWEEP_MS = 24 * 60 * 60_000;

/** This process's heartbeat files, by spool, with their timers. */
const beating = new Map<string, { file: string; timer: NodeJS.Timeout }>();
let exitHook = false;

function aliveDir(root: string): string {
  return join(root, 'alive');
}

function heartbeatFile(root: string, pid: number, start: string): string {
  return join(aliveDir(root), `${pid}+${start}`);
}

/** Starts this process's heartbeat in the spool at `root` (once per spool; a no-op where the start is unknown). */
export function startHeartbeat(root: string): void {
  const me = thisProcess();
  if (me.start === undefined || beating.has(root)) return;
  const file = heartbeatFile(root, me.pid, me.start);
  const beat = (): void => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // Gone: made again while the spool is there; a spool removed (a test's, say) ends it.
      if (!existsSync(root)) return stop(root);
      try {
        makeFolders(aliveDir(root));
        writeFileSync(file, '');
      } catch {
        // a spool that cannot be written to: the run's own writes will say so
      }
    }
  };
  const timer = setInterval(beat, HEARTBEAT_INTERVAL_MS);
  timer.unref();
  beating.set(root, { file, timer });
  makeFolders(root);
  beat();
  sweep(root, file);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const root of [...beating.keys()]) stop(root);
    });
  }
}

/** Ends this process's heartbeat in a spool: its file goes. */
function stop(root: string): void {
  const entry = beating.get(root);
  if (!entry) return;
  clearInterval(entry.timer);
  rmSync(entry.file, { force: true });
  beating.delete(root);
}

/** Whether the process a record names has beaten in the spool at `root` within the last 5 minutes. */
export function heartbeatFresh(root: string, ref: ProcessRef, now = Date.now()): boolean {
  if (ref.start === undefined) return false;
  try {
    return now - statSync(heartbeatFile(root, ref.pid, ref.start)).mtimeMs < HEARTBEAT_STALE_MS;
  } catch {
    return false;
  }
}

function sweep(root: string, keep: string): void {
  for (const name of namesIn(aliveDir(root))) {
    const file = join(aliveDir(root), name);
    try {
      if (file !== keep && Date.now() - statSync(file).mtimeMs > SWEEP_MS) rmSync(file, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Whether the process a record names is alive, as told from this process with the spool at
 * `root`: this process is; one on this host, boot and pid namespace by its pid and start;
 * another by its heartbeat; null when it cannot be told (another host, no start recorded).
 * A record that names no start (docpipe 0.2.0's) is told by its pid, unless the process with
 * that pid now is clearly another (pidTakenSince; `recordedAtMs`: when the record was made).
 */
export function recordAlive(root: string, ref: ProcessRef, recordedAtMs?: number | null): boolean | null {
  const taken = (): boolean => ref.start === undefined && pidTakenSince(ref.pid, recordedAtMs);
  switch (checkFor(ref, thisProcess())) {
    case 'this':
      return !taken();
    case 'pid':
      return isProcessAlive(ref.pid, ref.start) && !taken();
    case 'heartbeat':
      return heartbeatFresh(root, ref);
    case 'unknown':
      return null;
  }
}
