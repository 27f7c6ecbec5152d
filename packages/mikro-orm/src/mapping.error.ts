/**
 * Raised while turning the domain model into tables, or rows back into the model, when the two
 * cannot agree (a name collision, an entity missing from the schema, an unknown filter field).
 */
export class MappingError extends Error {
  override readonly name = 'MappingError';
}
