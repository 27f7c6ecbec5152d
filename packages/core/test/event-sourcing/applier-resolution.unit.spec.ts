/**
 * Which @apply method handles an event, as `raise` and replay ask for every event. The answer is
 * resolved once per aggregate class and event class, so a subclass that overrides an applier
 * must get its own answer whichever class was asked first.
 */
import { describe, expect, it } from 'vitest';
import { apply, BaseEvent } from '../../src/index.js';
import { applierFor } from '../../src/elements/apply.js';

class Opened extends BaseEvent {}
class Closed extends BaseEvent {}

class Ledger {
  @apply(Opened) onOpened(_event: Opened): void {}
}

class AuditedLedger extends Ledger {
  @apply(Opened) onOpenedAudited(_event: Opened): void {}
}

class LazyLedger {
  @apply(() => Reopened) onReopened(_event: Reopened): void {}
}
class Reopened extends BaseEvent {}

describe('applierFor', () => {
  it('gives a subclass its own most-derived applier, asked after and before its base class', () => {
    expect(applierFor(Ledger, Opened)).toBe('onOpened');
    expect(applierFor(AuditedLedger, Opened)).toBe('onOpenedAudited');
    expect(applierFor(Ledger, Opened)).toBe('onOpened');
    expect(applierFor(AuditedLedger, Opened)).toBe('onOpenedAudited');
  });

  it('keeps answering undefined for an event the class has no applier for', () => {
    expect(applierFor(Ledger, Closed)).toBeUndefined();
    expect(applierFor(Ledger, Closed)).toBeUndefined();
    expect(applierFor(Ledger, Opened)).toBe('onOpened');
  });

  it('resolves an event given lazily (declared after the aggregate)', () => {
    expect(applierFor(LazyLedger, Reopened)).toBe('onReopened');
    expect(applierFor(LazyLedger, Opened)).toBeUndefined();
  });
});
