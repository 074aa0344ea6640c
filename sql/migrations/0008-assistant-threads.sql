-- Schema version 8: the assistant threads fetched, whatever they held. A thread's messages
-- alone could not say it was fetched when it had none: such a thread was asked for again on
-- every run. Threads fetched by earlier releases are those with messages (when unknown, their
-- fetch time is that of the run that loaded them, or NULL).
--
-- A conversation's thread is its `thread_id`, or else its `id`: the API names a thread by the
-- id of a conversation row (its docs: the thread ID is "the `id` field of any row returned by
-- Get assistant conversations"). Rows loaded before keep the thread_id they were given.
CREATE TABLE assistant_threads (
  project_id VARCHAR NOT NULL, thread_id VARCHAR NOT NULL,
  created_at TIMESTAMPTZ, message_count INTEGER NOT NULL, fetched_at TIMESTAMPTZ, run_id VARCHAR,
  PRIMARY KEY (project_id, thread_id)
);
INSERT INTO assistant_threads (project_id, thread_id, created_at, message_count, fetched_at, run_id)
SELECT m.project_id, m.thread_id, min(m.thread_created_at), count(*), max(r.started_at), max(m.run_id)
  FROM assistant_messages m LEFT JOIN runs r ON r.run_id = m.run_id
 GROUP BY m.project_id, m.thread_id;
COMMENT ON TABLE assistant_threads IS 'The assistant threads fetched (export assistant --threads), one row each, with how many messages they held: a thread here is not fetched again unless refreshed.';
COMMENT ON COLUMN assistant_threads.thread_id IS 'The thread: a conversation''s thread_id, or else its id.';
COMMENT ON COLUMN assistant_threads.message_count IS 'Messages the thread held when fetched (0 is possible); they are in assistant_messages.';
COMMENT ON COLUMN assistant_threads.fetched_at IS 'When it was loaded (NULL: before this table, unknown).';
COMMENT ON COLUMN assistant_conversations.thread_id IS 'The thread of the turn: the API''s threadId when it sends one, else its id (NULL in rows docpipe 0.2.0 loaded without a threadId: their thread is their id).';
