/**
 * `docpipe doctor [--fix]`: checks the database's invariants (../../load/doctor.ts), prints
 * one row per check or finding and a summary line, and exits 1 while a finding remains.
 * Without --fix it only reads (the database read-only, the spool without touching it); with
 * --fix it is a writer like export, makes the safe repairs, then checks again.
 */
import type { CommandModule } from 'yargs';
import { type CliContext } from '../context.js';
export declare function doctorCommand(ctx: CliContext): CommandModule;
