/**
 * The model bench/io-bound drives: sources raise `Pinged` (one partition key per source), and the
 * handler under test does nothing but wait 20 ms, as a handler calling a remote service would.
 * It changes no aggregate, so what it costs is the framework's: the read, the inbox record in
 * its own transaction, the ack.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BaseAggregate, BaseEvent, BaseEventHandler, Domain, field, handle } from '@protean-ts/core';

/** The simulated I/O each message waits for. */
export const IO_WAIT_MS = 20;

// root: the benchmark's own domain.toml sits next to this file.
export const ioDomain = new Domain('IoBound', { root: import.meta.url });

@ioDomain.aggregate()
export class Source extends BaseAggregate {
  @field.string({ required: true }) label!: string;

  ping(n: number): void {
    this.raise(Pinged.create({ sourceId: this.id, n }));
  }
}

@ioDomain.event({ partOf: Source })
export class Pinged extends BaseEvent {
  @field.identifier({ required: true }) sourceId!: string;
  @field.integer({ required: true }) n!: number;
}

/** The handler under test: 20 ms of waiting, no work. */
@ioDomain.eventHandler({ streamCategory: Source })
export class RemoteCaller extends BaseEventHandler {
  @handle(Pinged)
  async onPinged(): Promise<void> {
    await sleep(IO_WAIT_MS);
  }
}
