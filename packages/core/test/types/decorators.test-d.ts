import { describe, expectTypeOf, it } from 'vitest';
import { BaseAggregate, BaseCommand, BaseCommandHandler, BaseEvent, BaseValueObject, Domain, field, handle } from '../../src/index.js';

const domain = new Domain('DecoratorTypes');

@domain.aggregate()
class Order extends BaseAggregate {
  @field.string() customer?: string;
}

@domain.command({ partOf: Order })
class PlaceOrder extends BaseCommand {
  @field.string({ required: true }) customer!: string;
}

@domain.event({ partOf: Order })
class OrderPlaced extends BaseEvent {
  @field.identifier({ required: true }) orderId!: string;
}

describe('element decorators', () => {
  it('accept only classes of the matching base', () => {
    // @ts-expect-error a value object is not an aggregate
    domain.aggregate()(class Money extends BaseValueObject {});
    // @ts-expect-error an event is not a command
    domain.command()(OrderPlaced);
    expectTypeOf(domain.aggregate()(Order)).toEqualTypeOf<typeof Order>();
  });

  it('@handle checks the method takes the message', () => {
    class Handlers extends BaseCommandHandler {
      @handle(PlaceOrder) place(command: PlaceOrder): string {
        return command.customer;
      }
      // @ts-expect-error the method takes an OrderPlaced, not the PlaceOrder it handles
      @handle(PlaceOrder) wrong(event: OrderPlaced): string {
        return event.orderId;
      }
      @handle(PlaceOrder) protected internal(command: PlaceOrder): string {
        return command.customer;
      }
    }
    expectTypeOf<Handlers['place']>().returns.toEqualTypeOf<string>();
  });

  it('field decorators check the property type', () => {
    class Typed extends BaseAggregate {
      @field.string() a?: string;
      @field.status({ values: ['X', 'Y'] }) b?: 'X' | 'Y';
      @field.datetime() c?: Date;
      @field.list({ of: 'string' }) d?: string[];
      @field.dict() e?: { colour: string };
      // @ts-expect-error a boolean field cannot hold a number
      @field.boolean() f?: number;
      // @ts-expect-error a date field holds a Date
      @field.date() g?: string;
      // @ts-expect-error a valueObject field holds an instance of its target
      @field.valueObject(() => Order) h?: string;
    }
    expectTypeOf<Typed>().toHaveProperty('a');
  });
});
