/**
 * A short lock across the processes that share a spool (and the runs of this process): a file
 * created only if it does not exist, naming its holder, held for a few milliseconds (a read
 * and a write). One a process that is gone left (kill -9 while it held it) is taken over; one
 * a live process keeps for longer than `timeoutMs` (stopped with SIGSTOP, say) is given up on,
 * and the caller goes on without it, as it did before there was a lock.
 */
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isThisProcess, thisProcess, type ProcessRef } from '../core/process-identity.js';
import { isLiveOther, readText, removeIfUnchanged } from './spool.js';
import { makeFolders } from '../core/files.js';

/** Holders in this process, by path: one at a time, in turn (the file cannot tell them apart). */
const inProcess = new Map<string, Promise<void>>();

/** A lock file with no holder written yet is left alone for this long (it is being written). */
const BEING_WRITTEN_MS = 1_000;

function youngerThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < ms;
  } catch {
    return false;
  }
}

/** The holder a lock file's text names; null for none (being written, or not a lock file). */
function ownerOf(text: string): ProcessRef | null {
  try {
    return (JSON.parse(text) as { owner?: ProcessRef }).owner ?? null;
  } catch {
    return null;
  }
}

/** Whether the lock file (`text`, as read) is held by nobody: a process that is gone holds nothing. */
function isStale(path: string, text: string, root: string): boolean {
  const owner = ownerOf(text);
  return owner !== null ? !isLiveOther(owner, root) : !youngerThan(path, BEING_WRITTEN_MS);
}

/**
 * Removes the lock at `path` if a process that is gone left it (kill -9 while it held it).
 * Taking the lock does that too, but a run alone takes it only when it needs it: without
 * this, such a file stayed in the spool until runs next overlapped. Never throws.
 */
export function sweepStaleLock(path: string, root: string): void {
  const text = readText(path);
  if (text === null || inProcess.has(path)) return;
  try {
    if (isStale(path, text, root)) removeIfUnchanged(path, text);
  } catch {
    // a spool that cannot be changed now: taking the lock deals with the file later
  }
}

/**
 * Takes the lock at `path` (`root`: the spool, where processes elsewhere keep their heartbeat)
 * and resolves to its release.
 */
export async function takeShortLock(path: string, root: string, signal?: AbortSignal, timeoutMs = 5_000): Promise<() => void> {
  const before = inProcess.get(path) ?? Promise.resolve();
  let letNextIn!: () => void;
  const turn = new Promise<void>((resolve) => (letNextIn = resolve));
  const chain = before.then(() => turn);
  inProcess.set(path, chain);
  const releaseInProcess = (): void => {
    letNextIn();
    if (inProcess.get(path) === chain) inProcess.delete(path);
  };
  await before;
  const started = Date.now();
  let held = false;
  try {
    for (let delay = 1; !held; delay = Math.min(delay * 2, 16)) {
      signal?.throwIfAborted();
      try {
        writeFileSync(path, JSON.stringify({ owner: thisProcess() }), { flag: 'wx' });
        held = true;
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          makeFolders(dirname(path));
          continue;
        }
        if (code !== 'EEXIST') throw error;
      }
      const text = readText(path);
      if (text === null) continue; // let go meanwhile
      // This process holds nothing now (its holders take turns above): a file naming it is
      // one a holder of this process could not remove.
      if (isStale(path, text, root)) {
        removeIfUnchanged(path, text);
        continue;
      }
      if (Date.now() - started >= timeoutMs) break; // held for too long: go on without it
      await sleep(delay * (0.5 + Math.random()));
    }
  } catch (error) {
    releaseInProcess();
    throw error;
  }
  return () => {
    if (held) {
      const text = readText(path);
      // Only a file naming this process is its to remove.
      const owner = text === null ? null : ownerOf(text);
      if (owner !== null && isThisProcess(owner)) rmSync(path, { force: true });
    }
    releaseInProcess();
  };
}
