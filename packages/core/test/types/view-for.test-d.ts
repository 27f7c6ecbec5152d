import { describe, expectTypeOf, it } from 'vitest';
import { BaseAggregate, BaseEvent, BaseProjection, BaseProjector, Domain, field, on, type ProjectionView, type Repository } from '../../src/index.js';

const domain = new Domain('ViewTypes');

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string() customer?: string;
}

@domain.event({ partOf: Order })
class Placed extends BaseEvent {
  @field.identifier() orderId?: string;
}

@domain.projection()
class OrderCard extends BaseProjection {
  @field.identifier({ identifier: true }) orderId!: string;
  @field.string() customer?: string;
}

@domain.projector({ projectorFor: OrderCard, aggregates: [Order] })
class OrderCardProjector extends BaseProjector {
  @on(Placed) placed(_event: Placed): void {}
}

describe('viewFor', () => {
  it('is typed by the projection class, reads only', () => {
    const view = domain.viewFor(OrderCard);
    expectTypeOf(view).toEqualTypeOf<ProjectionView<OrderCard>>();
    expectTypeOf(view.get).returns.toEqualTypeOf<Promise<OrderCard>>();
    expectTypeOf(view.find).returns.toEqualTypeOf<Promise<OrderCard | undefined>>();
    expectTypeOf(view.query).returns.toEqualTypeOf<Promise<OrderCard[]>>();
    expectTypeOf(view.exists).returns.toEqualTypeOf<Promise<boolean>>();
    // @ts-expect-error a view does not write
    view.add(OrderCard.create({ orderId: 'o1' }));
  });

  it('accepts projections only; projectors write through repositoryFor', () => {
    // @ts-expect-error an aggregate has no view
    domain.viewFor(Order);
    expectTypeOf(domain.repositoryFor(OrderCard)).toEqualTypeOf<Repository<OrderCard>>();
  });

  it('@on takes events only, and the method must accept that event', () => {
    expectTypeOf(OrderCardProjector).toBeConstructibleWith();
    class Wrong extends BaseProjector {
      // @ts-expect-error the method takes another class than the event
      @on(Placed) placed(_event: Order): void {}
    }
    void Wrong;
  });
});
