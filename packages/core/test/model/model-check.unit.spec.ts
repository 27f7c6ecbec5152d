import { describe, expect, it } from 'vitest';
import {
  BaseAggregate,
  BaseCommand,
  BaseCommandHandler,
  BaseEntity,
  BaseEvent,
  BaseEventHandler,
  BaseRepository,
  BaseValueObject,
  Domain,
  DomainModelError,
  field,
  handle,
} from '../../src/index.js';

describe('model checks', () => {
  it('pass for a consistent model and init freezes it', async () => {
    const domain = new Domain('Good');
    @domain.aggregate()
    class Cart extends BaseAggregate {
      @field.hasMany(() => Item) items?: Item[];
    }
    @domain.entity({ partOf: Cart })
    class Item extends BaseEntity {}
    @domain.event({ partOf: Cart })
    class Emptied extends BaseEvent {}
    @domain.eventHandler({ partOf: Cart })
    class Audit extends BaseEventHandler {
      @handle(Emptied) onEmptied(): void {}
    }
    expect(domain.validateModel()).toEqual([]);
    expect(() => domain.checkModel()).not.toThrow();
    expect(Audit).toBeDefined();
  });

  it('report every problem at once, one line each', () => {
    const domain = new Domain('Bad');
    @domain.aggregate()
    class Order extends BaseAggregate {
      @field.hasMany(() => Address) lines?: Address[];
      @field.hasOne(() => Loose) loose?: Loose;
      @field.valueObject(() => Line) address?: Line;
      @field.reference(() => Line) owner?: string;
      @field.status({ values: ['A', 'B'], default: 'C', transitions: { A: ['Z'] } }) state?: string;
      @field.list({ of: () => Line }) tags?: Line[];
    }
    @domain.entity({ partOf: Order })
    class Line extends BaseEntity {}
    @domain.entity({ partOf: undefined as never })
    class Orphan extends BaseEntity {}
    class Loose extends BaseEntity {}
    @domain.valueObject()
    class Address extends BaseValueObject {}
    @domain.event({ partOf: Line })
    class LineAdded extends BaseEvent {}
    @domain.command({ partOf: Address })
    class AddLine extends BaseCommand {}
    class Unregistered extends BaseEvent {}
    @domain.eventHandler({})
    class Streamless extends BaseEventHandler {
      @handle(LineAdded) a(): void {}
      @handle(LineAdded) b(): void {}
      @handle(Unregistered) c(): void {}
      @handle(AddLine) d(): void {}
    }
    @domain.commandHandler({ partOf: Order, streamCategory: Line })
    class Commands extends BaseCommandHandler {
      @handle(LineAdded) e(): void {}
      @handle(AddLine) f(): void {}
    }
    @domain.commandHandler({ partOf: Order })
    class MoreCommands extends BaseCommandHandler {
      @handle(AddLine) g(): void {}
    }
    @domain.repository({ partOf: Line })
    class Lines extends BaseRepository {}
    const twin = (() => {
      @domain.aggregate()
      class Order extends BaseAggregate {}
      return Order;
    })();

    const problems = domain.validateModel();
    expect(problems).toEqual([
      '"Order" is registered 2 times: Order (aggregate), Order (aggregate); rename one (messages may set { name })',
      'Order.lines: hasMany target Address is not a registered entity (decorate it with @domain.entity({ partOf: ... }))',
      'Order.loose: hasOne target Loose is not a registered entity (decorate it with @domain.entity({ partOf: ... }))',
      'Order.address: valueObject target Line is not a registered value object',
      'Order.owner: reference target Line is not a registered aggregate',
      'Order.state: status default "C" is not among its values (A, B)',
      'Order.state: transition state "Z" is not among its values (A, B)',
      'Order.tags: list item type Line is not a registered value object',
      'Orphan (entity): has no aggregate; declare @domain.entity({ partOf: SomeAggregate })',
      'LineAdded (event): partOf Line is not a registered aggregate',
      'AddLine (command): partOf Address is not a registered aggregate',
      'Streamless (event handler): has no stream; give partOf (an aggregate) or streamCategory',
      'Streamless.c: @handle(Unregistered) names a class that is not a registered event or command',
      'Streamless.d: an event handler handles events, but AddLine is a command',
      'Streamless (event handler): has 2 methods for LineAdded (a, b); keep one',
      'Commands (command handler): streamCategory Line is not a registered aggregate (give an aggregate class or a category string)',
      'Commands.e: a command handler handles commands, but LineAdded is an event',
      'Lines (repository): partOf Line is not a registered aggregate',
      'Bad.AddLine.v1 is handled by 2 command handlers (Commands, MoreCommands); a command has exactly one',
    ]);
    expect(() => domain.checkModel()).toThrow(DomainModelError);
    try {
      domain.checkModel();
    } catch (error) {
      const e = error as DomainModelError;
      expect(e.problems).toEqual(problems);
      expect(e.message.split('\n')).toHaveLength(problems.length + 1);
      expect(e.message).toMatch(/^Domain "Bad" has 19 model problems:/);
    }
    expect([twin, MoreCommands, Lines, Commands, Streamless, Orphan]).toHaveLength(6);
  });

  it('report a lazy target that resolves to nothing', () => {
    const domain = new Domain('Lazy');
    @domain.aggregate()
    class Box extends BaseAggregate {
      @field.hasOne(() => undefined as never) thing?: never;
    }
    expect(Box.name).toBe('Box');
    expect(domain.validateModel()).toEqual(['Box.thing: the hasOne target is undefined (the lazy reference returned nothing; check for an import cycle)']);
  });

  it('init checks the model first and refuses to start', async () => {
    const domain = new Domain('Init');
    @domain.event({ partOf: class NotAnAggregate {} as never })
    class Happened extends BaseEvent {}
    await expect(domain.init()).rejects.toThrow(DomainModelError);
    expect(domain.registry.isFrozen).toBe(false);
    expect(Happened).toBeDefined();
  });
});
