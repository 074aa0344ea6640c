-- Schema version 7: a run records its process's start beside its pid (on Linux, the boot and
-- the start time since boot: src/core/process-identity.ts), so that a run whose process is
-- gone is not taken for alive once its pid is reused, after a reboot above all. NULL in runs
-- recorded before, and where the start cannot be read: there the pid alone decides.
ALTER TABLE runs ADD COLUMN process_start VARCHAR;
COMMENT ON COLUMN runs.process_start IS 'The start of the process that ran it, with pid and host (NULL: unknown); tells a reused pid.';
