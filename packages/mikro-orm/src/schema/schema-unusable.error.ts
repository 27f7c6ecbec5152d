/**
 * Thrown by `db setup` (and anything else that creates tables) when the PostgreSQL schema set
 * with `[databases.<name>] schema` cannot hold the provider's tables: it does not exist and the
 * role may not create it, or another role owns it without granting this one USAGE and CREATE.
 * Names the key, the schema and the role, and what an owner would run, instead of the driver's
 * bare "permission denied".
 */
export class SchemaUnusableError extends Error {
  override readonly name = 'SchemaUnusableError';

  constructor(
    readonly provider: string,
    readonly schema: string,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`[databases.${provider}] schema "${schema}" ${problem}`, options);
  }
}
