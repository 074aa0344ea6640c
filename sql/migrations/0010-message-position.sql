-- Schema version 10: each assistant message keeps its place in its thread. The API lists a
-- thread's messages in order, and two of them may share a createdAt (to the second, or both
-- NULL), so the order is kept as sent. Messages loaded before this version have no position.
ALTER TABLE assistant_messages ADD COLUMN position INTEGER;
COMMENT ON COLUMN assistant_messages.position IS 'Place of the message in its thread as the API listed it, from 1; order a transcript by it. NULL for messages loaded by docpipe before 0.3.';
