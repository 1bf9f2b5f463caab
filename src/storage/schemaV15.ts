/**
 * v15: the person organises the conversation list, and a conversation may answer with its own model.
 * - pinned_at: when it was pinned (NULL: not pinned); pinned conversations head the list.
 * - archived_at: when it was archived (NULL: in the list). Archiving only hides it from the list:
 *   its turns, episodes and what was derived from them stay memory until it is deleted.
 * - answer_model: NULL follows the default in Settings; 'device' is the model chosen on this
 *   device; 'endpoint:<name>' is a model of the endpoint in Settings, by name.
 */
export const v15 = /* sql */ `
ALTER TABLE conversations ADD COLUMN pinned_at INTEGER;
ALTER TABLE conversations ADD COLUMN archived_at INTEGER;
ALTER TABLE conversations ADD COLUMN answer_model TEXT CHECK (answer_model IS NULL OR answer_model = 'device' OR answer_model LIKE 'endpoint:_%');
`;
