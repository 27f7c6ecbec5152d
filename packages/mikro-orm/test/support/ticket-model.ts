/** Tickets sold by commands, for the command-outcome tests: a handler that counts its runs and one that refuses. */
import { BaseAggregate, BaseCommand, BaseCommandHandler, Domain, field, handle, PermanentError } from '@protean-ts/core';

export const ticketDomain = new Domain('Tickets');
const domain = ticketDomain;

/** How often each handler method actually ran, by command class. */
export const handlerRuns = { sell: 0, refuse: 0 };

export class SoldOut extends PermanentError {}

@domain.aggregate()
export class Ticket extends BaseAggregate {
  @field.string({ required: true }) buyer!: string;
}

@domain.command({ partOf: Ticket })
export class SellTicket extends BaseCommand {
  @field.string({ required: true }) buyer!: string;
}

@domain.command({ partOf: Ticket })
export class SellSoldOut extends BaseCommand {
  @field.string({ required: true }) buyer!: string;
}

@domain.commandHandler({ partOf: Ticket })
export class TicketDesk extends BaseCommandHandler {
  @handle(SellTicket)
  async sell(command: SellTicket): Promise<{ ticketId: string }> {
    handlerRuns.sell += 1;
    const ticket = Ticket.create({ buyer: command.buyer });
    await domain.repositoryFor(Ticket).add(ticket);
    // Long enough for a concurrent command with the same key to arrive while this one is open.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { ticketId: ticket.id };
  }

  @handle(SellSoldOut)
  refuse(command: SellSoldOut): never {
    handlerRuns.refuse += 1;
    throw new SoldOut(`no tickets left for ${command.buyer}`);
  }
}
