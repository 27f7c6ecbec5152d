/**
 * A permanent error is dead-lettered at its first failure, end to end: a process manager that
 * schedules its timeout with a duration the framework cannot read (InvalidDurationError) runs
 * once, not once per retry, and its event lands in the dead-letter stream naming the duration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEvent, BaseProcessManager, Domain, field, handle } from '@protean-ts/core';
import { drain, stopHandlers } from '../src/index.js';

const desk = new Domain('Desk');
let attempts = 0;

@desk.aggregate()
class Ticket extends BaseAggregate {
  @field.string({ required: true }) title!: string;
}

@desk.event({ partOf: Ticket })
class TicketOpened extends BaseEvent {
  @field.identifier({ required: true }) ticketId!: string;
}

@desk.event({ partOf: Ticket })
class TicketStale extends BaseEvent {
  @field.identifier({ required: true }) ticketId!: string;
}

@desk.processManager({ aggregates: [Ticket] })
class StaleTickets extends BaseProcessManager {
  ticketId = '';

  @handle(TicketOpened, { correlate: 'ticketId', start: true })
  opened(event: TicketOpened): void {
    attempts++;
    this.scheduleTimeout(TicketStale.create({ ticketId: event.ticketId }), { after: '2 weeks' });
  }

  @handle(TicketStale, { correlate: 'ticketId', end: true })
  stale(): void {}
}

describe('a permanent error in a handler', () => {
  beforeAll(() =>
    desk.init({ config: { event_processing: 'async', databases: { default: { provider: 'memory' } }, brokers: { default: { provider: 'inline' } } } }),
  );
  afterAll(() => stopHandlers(desk));

  it('is dead-lettered at the first failure, with the error that names the bad duration', async () => {
    const ticket = Ticket.create({ title: 'printer on fire' });
    ticket.raise(TicketOpened.create({ ticketId: ticket.id }));
    await desk.repositoryFor(Ticket).add(ticket);
    await drain(desk);

    expect(attempts).toBe(1);
    const letters = await desk.runtime.infrastructure.broker('default').listDeadLetters('desk::ticket');
    expect(letters).toHaveLength(1);
    expect(letters[0]!.group).toBe(StaleTickets.name);
    expect(letters[0]!.envelope?.metadata.headers.type).toBe('Desk.TicketOpened.v1');
    expect(letters[0]!.error).toContain('2 weeks');
  });
});
