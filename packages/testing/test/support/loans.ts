/**
 * A library's loans for the kit's timeout tests: lending a book starts a process manager that
 * schedules an overdue reminder 14 days later; returning the book first completes it, which
 * cancels the reminder.
 */
import { BaseAggregate, BaseEvent, BaseProcessManager, Domain, field, handle } from '@protean-ts/core';

export const library = new Domain('Library');

/** Loan ids the manager sent a reminder for, in order (the test's observable effect). */
export const reminded: string[] = [];

@library.aggregate()
export class Loan extends BaseAggregate {
  @field.string({ required: true }) book!: string;

  static lend(book: string): Loan {
    const loan = Loan.create({ book });
    loan.raise(BookLent.create({ loanId: loan.id }));
    return loan;
  }

  giveBack(): void {
    this.raise(BookReturned.create({ loanId: this.id }));
  }
}

@library.event({ partOf: Loan })
export class BookLent extends BaseEvent {
  @field.identifier({ required: true }) loanId!: string;
}

@library.event({ partOf: Loan })
export class BookReturned extends BaseEvent {
  @field.identifier({ required: true }) loanId!: string;
}

@library.event({ partOf: Loan })
export class LoanOverdue extends BaseEvent {
  @field.identifier({ required: true }) loanId!: string;
}

@library.processManager({ aggregates: [Loan] })
export class OverdueReminders extends BaseProcessManager {
  loanId = '';

  @handle(BookLent, { correlate: 'loanId', start: true })
  lent(event: BookLent): void {
    this.scheduleTimeout(LoanOverdue.create({ loanId: event.loanId }), { after: '14d' });
  }

  @handle(BookReturned, { correlate: 'loanId', end: true })
  returned(): void {}

  @handle(LoanOverdue, { correlate: 'loanId', end: true })
  overdue(event: LoanOverdue): void {
    reminded.push(event.loanId);
  }
}
