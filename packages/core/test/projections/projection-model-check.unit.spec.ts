/** domain.init() refuses inconsistent projections and projectors, naming each one and the fix. */
import { describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseCommand,
  BaseEvent,
  BaseProjection,
  BaseProjector,
  Domain,
  DomainModelError,
  field,
  on,
  RegistrationError,
} from '../../src/index.js';

function model() {
  const domain = new Domain('Checks');

  @domain.aggregate()
  class Order extends BaseAggregate {
    @field.string() customer?: string;
  }

  @domain.event({ partOf: Order })
  class Placed extends BaseEvent {
    @field.identifier() orderId?: string;
  }

  @domain.command({ partOf: Order })
  class Place extends BaseCommand {
    @field.identifier() orderId?: string;
  }

  @domain.aggregate()
  class Parcel extends BaseAggregate {}

  @domain.event({ partOf: Parcel })
  class Shipped extends BaseEvent {}

  @domain.projection()
  class OrderView extends BaseProjection {
    @field.identifier({ identifier: true }) orderId!: string;
  }

  return { domain, Order, Placed, Place, Parcel, Shipped, OrderView };
}

const problemsOf = (domain: Domain) => domain.validateModel();

describe('projection and projector model checks', () => {
  it('a consistent projection and projector pass', () => {
    const { domain, OrderView, Order, Placed } = model();
    @domain.projector({ projectorFor: OrderView, aggregates: [Order] })
    class OrderViewProjector extends BaseProjector {
      @on(Placed) placed(): void {}
    }
    expect(OrderViewProjector).toBeDefined();
    expect(problemsOf(domain)).toEqual([]);
  });

  it('refuses a projection without a declared identifier', () => {
    const { domain } = model();
    @domain.projection()
    class Totals extends BaseProjection {
      @field.integer() total?: number;
    }
    expect(Totals).toBeDefined();
    expect(problemsOf(domain)).toEqual([
      'Totals (projection): has no identifier; declare the field that identifies a record, e.g. @field.identifier({ identifier: true }) orderId',
    ]);
  });

  it('refuses a projector without projectorFor, or whose projectorFor is not a projection', () => {
    const { domain, Order, Placed } = model();
    @domain.projector({ aggregates: [Order] } as never)
    class Orphan extends BaseProjector {
      @on(Placed) placed(): void {}
    }
    @domain.projector({ projectorFor: Order, aggregates: [Order] })
    class Wrong extends BaseProjector {
      @on(Placed) placed(): void {}
    }
    expect([Orphan, Wrong]).toHaveLength(2);
    expect(problemsOf(domain)).toEqual([
      'Orphan (projector): has no projection; declare @domain.projector({ projectorFor: SomeProjection, aggregates: [...] })',
      'Wrong (projector): projectorFor Order is not a registered projection (decorate it with @domain.projection())',
    ]);
  });

  it('refuses a projector that follows nothing, or lists a class that is not an aggregate', () => {
    const { domain, OrderView, Placed } = model();
    @domain.projector({ projectorFor: OrderView })
    class Idle extends BaseProjector {
      @on(Placed) placed(): void {}
    }
    @domain.projector({ projectorFor: OrderView, aggregates: [OrderView] })
    class Confused extends BaseProjector {
      @on(Placed) placed(): void {}
    }
    expect([Idle, Confused]).toHaveLength(2);
    const problems = problemsOf(domain);
    expect(problems).toContain("Idle (projector): follows nothing; give aggregates: [SomeAggregate] or streamCategories: ['<domain>::<aggregate>']");
    expect(problems).toContain('Confused (projector): aggregates lists OrderView, which is not a registered aggregate');
  });

  it('refuses @on naming a command or an unregistered class, an event it does not follow, and no @on at all', () => {
    const { domain, OrderView, Order, Place, Shipped } = model();
    class Stray extends BaseEvent {}
    @domain.projector({ projectorFor: OrderView, aggregates: [Order] })
    class Mixed extends BaseProjector {
      @on(Place as never) place(): void {}
      @on(Stray) stray(): void {}
      @on(Shipped) shipped(): void {}
    }
    @domain.projector({ projectorFor: OrderView, streamCategories: ['checks::order'] })
    class Silent extends BaseProjector {}
    expect([Mixed, Silent]).toHaveLength(2);
    expect(problemsOf(domain)).toEqual([
      'Mixed.place: @on(Place) names a command; a projector reacts to registered events only',
      'Mixed.stray: @on(Stray) names not a registered event; a projector reacts to registered events only',
      'Mixed.shipped: Shipped comes from stream category "checks::parcel", which Mixed does not follow (checks::order); add its aggregate to aggregates',
      'Silent (projector): has no @on(Event) methods, so it would never write OrderView',
    ]);
  });

  it("refuses subscriptionType 'event_store' for categories no event-sourced aggregate writes", () => {
    const { domain, OrderView, Order, Placed } = model();
    @domain.projector({ projectorFor: OrderView, aggregates: [Order], subscriptionType: 'event_store' })
    class FromStore extends BaseProjector {
      @on(Placed) placed(): void {}
    }
    expect(FromStore).toBeDefined();
    expect(problemsOf(domain)).toEqual([
      'FromStore (projector): subscriptionType \'event_store\', but no event-sourced aggregate writes its category "checks::order" to the event store; make that aggregate eventSourced, or leave subscriptionType out',
    ]);
  });

  it('init() throws one DomainModelError with every problem', async () => {
    const { domain } = model();
    @domain.projection()
    class Totals extends BaseProjection {}
    expect(Totals).toBeDefined();
    await expect(domain.init({ config: { databases: { default: { provider: 'memory' } } } })).rejects.toThrow(DomainModelError);
  });

  it('refuses malformed options at registration', () => {
    const { domain, OrderView, Order } = model();
    expect(() => domain.projector({ projectorFor: OrderView, aggregates: Order as never })(class A extends BaseProjector {})).toThrow(RegistrationError);
    expect(() => domain.projector({ projectorFor: OrderView, streamCategories: [''] })(class B extends BaseProjector {})).toThrow(
      "B: streamCategories must be a list, e.g. streamCategories: ['shop::order']",
    );
    expect(() =>
      domain.projector({ projectorFor: OrderView, aggregates: [Order], subscriptionType: 'kafka' as never })(class C extends BaseProjector {}),
    ).toThrow("C: subscriptionType must be 'stream' or 'event_store'");
    expect(() => domain.projection()(class D extends BaseAggregate {} as never)).toThrow('D cannot be registered as projection');
  });
});
