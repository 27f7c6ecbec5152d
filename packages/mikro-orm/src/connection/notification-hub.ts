/**
 * LISTEN/NOTIFY for one provider through a single dedicated connection (a pooled connection
 * cannot hold a LISTEN). Channels are listened to while they have listeners; after a dropped
 * connection it reconnects with a growing delay and listens again, so callers never re-subscribe.
 * LISTEN and UNLISTEN take turns on the connection (ConnectionTurns).
 */
import pg from 'pg';
import { getLogger, maskUri, type Logger } from '@protean-ts/core';
import { quoteIdent } from '../schema/column-naming.js';
import type { NotificationListener } from '../sql-executor.js';
import { ConnectionTurns } from './connection-turns.js';

const MAX_RECONNECT_DELAY_MS = 5_000;

export class NotificationHub {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly channels = new Map<string, Set<NotificationListener>>();
  private reconnectDelay = 100;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly turns = new ConnectionTurns();
  private readonly log: Logger;

  constructor(
    private readonly uri: string,
    providerName: string,
  ) {
    this.log = getLogger('postgresql', { provider: providerName });
  }

  async listen(channel: string, listener: NotificationListener): Promise<() => Promise<void>> {
    if (this.closed) throw new Error(`Cannot LISTEN on "${channel}": the database provider is closed`);
    let set = this.channels.get(channel);
    if (!set) {
      set = new Set();
      this.channels.set(channel, set);
      const client = await this.connection();
      await this.turns.run(() => client.query(`LISTEN ${quoteIdent(channel)}`));
    }
    set.add(listener);
    return async () => {
      const current = this.channels.get(channel);
      if (!current?.delete(listener) || current.size > 0) return;
      this.channels.delete(channel);
      const client = this.client;
      if (client) await this.turns.run(() => client.query(`UNLISTEN ${quoteIdent(channel)}`)).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.channels.clear();
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.uri, application_name: 'protean-ts:listen' });
    client.on('notification', (message) => this.dispatch(message.channel, message.payload ?? ''));
    client.on('error', (error) => this.dropped(client, error));
    client.on('end', () => this.dropped(client, undefined));
    await client.connect();
    for (const channel of this.channels.keys()) await this.turns.run(() => client.query(`LISTEN ${quoteIdent(channel)}`));
    this.client = client;
    this.reconnectDelay = 100;
    return client;
  }

  private dispatch(channel: string, payload: string): void {
    for (const listener of this.channels.get(channel) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        this.log.warn('notification listener threw', { channel, error });
      }
    }
  }

  private dropped(client: pg.Client, error: Error | undefined): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.log.warn('LISTEN connection lost; reconnecting', { uri: maskUri(this.uri), error: error?.message });
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.channels.size === 0) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(delay * 2, MAX_RECONNECT_DELAY_MS);
    this.reconnectTimer = setTimeout(() => {
      this.connection().catch((error: Error) => {
        this.log.warn('LISTEN reconnect failed', { error: error.message, retryInMs: this.reconnectDelay });
        this.scheduleReconnect();
      });
    }, delay);
    this.reconnectTimer.unref();
  }
}
