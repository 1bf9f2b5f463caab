/**
 * SQL for "this project's memory", shared by the explorer's pages and Forget. Each `?` binds the
 * project: its id, or null for chats in no project (`IS ?` matches both).
 */

/** The conversations of one project. */
export const CHATS_IN_PROJECT = 'SELECT id FROM conversations WHERE project_id IS ?';

/** A foresight row made from an episode of those chats, or read from one of their turns (binds the project twice). */
export const PLAN_IN_PROJECT = `(memcell_id IN (SELECT mc.id FROM memcells mc WHERE mc.conversation_id IN (${CHATS_IN_PROJECT})) OR source_message_id IN (SELECT m.id FROM messages m WHERE m.conversation_id IN (${CHATS_IN_PROJECT})))`;
