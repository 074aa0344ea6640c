-- Schema version 3: follow-up messages to agent jobs (`docpipe jobs message`).
--
-- One row per message, keyed like the job ledger so that each is sent once across runs: the
-- message's `id` from a batch file, else `sha256:` and 16 hex digits of its job id and text.
-- `status` is the message's own: pending (recorded, POST about to start), sent, unknown (the
-- POST's outcome is unknown; not resent unless asked), rejected (the API refused it).
-- `status_after` is the job's status in the API's answer to the message; `job_status` is the
-- job's status as last seen while it was followed again (its end status once it ended, or
-- timed_out).
CREATE TABLE agent_messages (
  project_id VARCHAR NOT NULL, message_key VARCHAR NOT NULL,
  job_id VARCHAR NOT NULL, prompt_key VARCHAR, prompt VARCHAR NOT NULL,
  status VARCHAR NOT NULL, status_after VARCHAR, job_status VARCHAR, pr_link VARCHAR,
  sent_at TIMESTAMPTZ, finished_at TIMESTAMPTZ, error VARCHAR, source_file VARCHAR,
  attempts INTEGER, polls INTEGER, updated_at TIMESTAMPTZ, run_id VARCHAR, post_started_at TIMESTAMPTZ,
  PRIMARY KEY (project_id, message_key)
);
