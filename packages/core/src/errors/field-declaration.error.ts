/**
 * Thrown while a class is being defined, when a field decorator's own options make no sense
 * (a list without `of`, min above max, a status without values).
 */
export class FieldDeclarationError extends Error {
  constructor(
    readonly field: string,
    readonly kind: string,
    readonly problem: string,
  ) {
    super(`field.${kind}()${field === '?' ? '' : ` on "${field}"`}: ${problem}`);
    this.name = 'FieldDeclarationError';
  }
}
