/**
 * One dump at a time per lake: `<out>/.docpipe-dump.lock`, created only if it does not exist,
 * names the dumping process. A second dump into the same folder would otherwise take the
 * first one's staging folder for a killed dump's and remove it (run-dump.ts), or swap
 * partitions under it. A lock whose process is gone (kill -9, a crash) is taken over.
 *
 * The lock file is its own heartbeat: its holder touches it every 30 s, so a lock of another
 * host, boot or container (a shared folder; pid checks cannot tell) counts as held until it
 * has not been touched for 5 minutes.
 */
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkFor, isProcessAlive, isThisProcess, thisProcess, type ProcessRef } from '../core/process-identity.js';
import { DocpipeError, EXIT } from '../core/errors.js';
import { HEARTBEAT_INTERVAL_MS, HEARTBEAT_STALE_MS } from '../spool/liveness.js';
import { readLockFile, removeIfUnchanged } from '../spool/spool.js';

export const DUMP_LOCK = '.docpipe-dump.lock';

/** Another dump is writing to the folder: exit 75, nothing written, the next run dumps. */
export class DumpBusyError extends DocpipeError {
  override readonly exitCode = EXIT.budget;
}

interface LockRecord {
  owner: ProcessRef;
  /** When the dump started (ISO). */
  since: string;
}

/** This process's locks (a library caller's two dumps into one folder at once). */
const held = new Set<string>();

function holderAlive(path: string, owner: ProcessRef): boolean {
  switch (checkFor(owner, thisProcess())) {
    case 'this':
      return held.has(path);
    case 'pid':
      return isProcessAlive(owner.pid, owner.start);
    default:
      try {
        return Date.now() - statSync(path).mtimeMs < HEARTBEAT_STALE_MS;
      } catch {
        return false;
      }
  }
}

/** Takes the lake's lock, or throws DumpBusyError naming the dump that holds it. Returns the release. */
export function lockLake(out: string): () => void {
  const path = join(out, DUMP_LOCK);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, JSON.stringify({ owner: thisProcess(), since: new Date().toISOString() } satisfies LockRecord), { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock being written is waited for; one whose writer was killed first is stale.
      const found = readLockFile(path);
      if (found === null) continue; // gone meanwhile
      if (found.holder !== null && holderAlive(path, found.holder)) {
        const since = (JSON.parse(found.text) as Partial<LockRecord>).since ?? 'unknown';
        throw new DumpBusyError(
          `another docpipe dump (pid ${found.holder.pid} on ${found.holder.host}, since ${since}) is writing to ${out}; ` +
            `try again when it is done (if that process is gone for good, remove ${path})`,
        );
      }
      removeIfUnchanged(path, found.text);
      continue;
    }
    held.add(path);
    const beat = setInterval(() => {
      try {
        const now = new Date();
        utimesSync(path, now, now);
      } catch {
        // removed under it: the release finds nothing to remove
      }
    }, HEARTBEAT_INTERVAL_MS);
    beat.unref();
    return () => {
      clearInterval(beat);
      held.delete(path);
      try {
        const record = JSON.parse(readFileSync(path, 'utf8')) as LockRecord;
        if (isThisProcess(record.owner)) rmSync(path, { force: true });
      } catch {
        // gone, or no longer this process's
      }
    };
  }
  throw new DumpBusyError(`could not take the lock ${path}: other dumps kept taking it; try again`);
}
