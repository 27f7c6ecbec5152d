/**
 * The bank fixture with a read model: AccountSummary (a projection) written by its projector
 * from the event-sourced Account's events through the event store, and NoteIndex, whose
 * projector follows the plain Note aggregate (its events are not kept, so it cannot be rebuilt).
 */
import { BANK_DOMAIN } from './bank-project.js';

export const PROJECTION_BANK_DOMAIN = `${BANK_DOMAIN}
import { BaseProjection, BaseProjector, on } from '@protean-ts/core';

@domain.event({ partOf: Note })
export class Noted extends BaseEvent {
  @field.identifier({ required: true }) noteId!: string;
}

@domain.projection()
export class AccountSummary extends BaseProjection {
  @field.identifier({ identifier: true }) accountId!: string;
  @field.string() owner?: string;
  @field.integer() balance?: number;
}

@domain.projector({ projectorFor: AccountSummary, aggregates: [Account], subscriptionType: 'event_store' })
export class AccountSummaryProjector extends BaseProjector {
  @on(Opened) async opened(event: Opened): Promise<void> {
    await domain.repositoryFor(AccountSummary).add(AccountSummary.create({ accountId: event.accountId, owner: event.owner, balance: 0 }));
  }
  @on(Deposited) async deposited(event: Deposited): Promise<void> {
    const summary = await domain.repositoryFor(AccountSummary).get(event.accountId);
    summary.balance = (summary.balance ?? 0) + event.amount;
    await domain.repositoryFor(AccountSummary).add(summary);
  }
}

@domain.projection()
export class NoteIndex extends BaseProjection {
  @field.identifier({ identifier: true }) noteId!: string;
}

@domain.projector({ projectorFor: NoteIndex, aggregates: [Note] })
export class NoteIndexProjector extends BaseProjector {
  @on(Noted) async noted(event: Noted): Promise<void> {
    await domain.repositoryFor(NoteIndex).add(NoteIndex.create({ noteId: event.noteId }));
  }
}
`;
