/**
 * Reads a queue's counts from the RabbitMQ management HTTP API (`management_uri`): the only
 * place RabbitMQ reports the deliveries every connection holds unacked (AMQP's passive declare
 * gives only the ready count). The counts come from the statistics database, refreshed every
 * `collect_statistics_interval`, so a reading describes a moment at most that long before it
 * was requested.
 */
import { RabbitMQManagementError } from './rabbitmq-management.error.js';
import type { RabbitMQManagementSettings } from './rabbitmq-broker-settings.js';

/** One reading of a queue; a count is null while the statistics database has none for it yet. */
export interface ManagementQueueReading {
  ready: number | null;
  unacked: number | null;
  consumers: number | null;
  /** `Date.now()` when the request was sent: the reading is no older than this minus one stats interval. */
  requestedAt: number;
}

const ENABLE_HINT = 'enable the plugin on the RabbitMQ node (rabbitmq-plugins enable rabbitmq_management) and check the host and port (15672 by default)';

export class RabbitMQManagementApi {
  private readonly authorization: string;

  constructor(
    private readonly brokerName: string,
    private readonly settings: RabbitMQManagementSettings,
    private readonly vhost: string,
    private readonly timeoutMs: number,
  ) {
    this.authorization = `Basic ${Buffer.from(`${settings.username}:${settings.password}`).toString('base64')}`;
  }

  get statsIntervalMs(): number {
    return this.settings.statsIntervalMs;
  }

  /** The queue's counts, or null when RabbitMQ has no such queue (404). */
  async queue(name: string): Promise<ManagementQueueReading | null> {
    const requestedAt = Date.now();
    const body = await this.read(`queues/${encodeURIComponent(this.vhost)}/${encodeURIComponent(name)}`, `queue "${name}"`);
    if (body === null) return null;
    return { ready: count(body.messages_ready), unacked: count(body.messages_unacknowledged), consumers: count(body.consumers), requestedAt };
  }

  /** Names of the queues bound to `exchange` ([] when there is no such exchange): a stream's groups, whichever process declared them. */
  async queuesBoundTo(exchange: string): Promise<string[]> {
    const body = await this.read(`exchanges/${encodeURIComponent(this.vhost)}/${encodeURIComponent(exchange)}/bindings/source`, `exchange "${exchange}"`);
    if (!Array.isArray(body)) return [];
    return (body as Record<string, unknown>[])
      .filter((b) => b.destination_type === 'queue' && typeof b.destination === 'string')
      .map((b) => b.destination as string);
  }

  /** One GET of the API, its JSON body; null on 404. */
  private async read(path: string, what: string): Promise<Record<string, unknown> | null> {
    const response = await this.get(`${this.settings.baseUrl}/api/${path}`);
    if (response.status === 404) return null;
    if (response.status === 401 || response.status === 403) {
      throw this.error(
        `the RabbitMQ management API at ${this.settings.maskedUri} refused the credentials (HTTP ${response.status}); check the user and password in management_uri, and that the user has the "monitoring" (or "management" with permissions on vhost "${this.vhost}", or "administrator") tag`,
      );
    }
    if (!response.ok)
      throw this.error(
        `the RabbitMQ management API at ${this.settings.maskedUri} answered HTTP ${response.status} for ${what}: ${(await response.text()).slice(0, 200)}`,
      );
    try {
      return (await response.json()) as Record<string, unknown>;
    } catch (err) {
      throw this.error(
        `${this.settings.maskedUri} did not answer JSON; management_uri must be the management API's address, e.g. "http://user:password@host:15672"`,
        err,
      );
    }
  }

  private async get(url: string): Promise<Response> {
    try {
      return await fetch(url, { headers: { authorization: this.authorization, accept: 'application/json' }, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const reason = err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
      throw this.error(`cannot reach the RabbitMQ management API at ${this.settings.maskedUri}: ${reason}; ${ENABLE_HINT}`, err);
    }
  }

  private error(problem: string, cause?: unknown): RabbitMQManagementError {
    return new RabbitMQManagementError(this.brokerName, problem, cause === undefined ? undefined : { cause });
  }
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
