/**
 * Thrown when an asynchronous command (or its outcome) has no database to go to: it belongs to
 * no aggregate, so it would use the "default" database, and that is not configured.
 */
export class CommandDatabaseError extends Error {
  constructor(
    readonly command: string,
    readonly database: string,
  ) {
    super(
      `${command} belongs to no aggregate (no partOf, and its command handler names none), so its outbox row and outcome go to the "${database}" database, ` +
        `which is not configured: give ${command} partOf: <an aggregate> (its database is then used), or add a [databases.${database}] table`,
    );
    this.name = 'CommandDatabaseError';
  }
}
