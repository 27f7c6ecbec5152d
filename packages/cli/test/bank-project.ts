/** The bank fixture of the event-store CLI tests, as a project's domain module and seed script. */

/**
 * The bank every protean-ts test shares (`makeBank` of `@protean-ts/conformance/fixtures`: an
 * event-sourced Account, events written through its repository) and a plain Note aggregate.
 */
export const BANK_DOMAIN = `
// BaseEvent is for the events projection-bank-project.ts appends to this module.
import { BaseAggregate, BaseEvent, field } from '@protean-ts/core';
import { makeBank } from '@protean-ts/conformance/fixtures';

export const { domain, Account, Opened, Deposited, Withdrawn } = makeBank('Bank', { root: import.meta.url });

@domain.aggregate()
export class Note extends BaseAggregate {
  @field.string() text?: string;
}
`;

/** Ann's account: opened, then 5 and 7 deposited in a second load-and-add; Bob's: opened. */
export const BANK_SEED = `
import { domain, Account } from './domain.ts';
await domain.init();
const accounts = domain.repositoryFor(Account);
const ann = Account.open('Ann');
await accounts.add(ann);
const loaded = await accounts.get(ann.id);
loaded.deposit(5);
loaded.deposit(7);
await accounts.add(loaded);
await accounts.add(Account.open('Bob'));
await domain.close();
`;
