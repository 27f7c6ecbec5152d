/**
 * Thrown when a subscription has a rate limit or a concurrency cap but the `[inbox] database`,
 * where every worker shares them, is not PostgreSQL (the configuration check refuses this too;
 * this catches a domain given its configuration in code).
 */
export class FlowLimitsNeedPostgresError extends Error {
  constructor(
    readonly subscription: string,
    readonly database: string,
    readonly provider: string,
  ) {
    super(
      `subscription "${subscription}" has rate_limit_per_second or max_concurrency in [server.flow_control], which every worker shares in the [inbox] database, ` +
        `but inbox.database "${database}" is ${provider}: point inbox.database at a PostgreSQL database or remove those keys`,
    );
    this.name = 'FlowLimitsNeedPostgresError';
  }
}
