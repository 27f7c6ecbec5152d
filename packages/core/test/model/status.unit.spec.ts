import { describe, expect, it } from 'vitest';
import { BaseAggregate, Domain, field, ValidationError } from '../../src/index.js';

const domain = new Domain('Status');

enum ShipmentState {
  PENDING = 'PENDING',
  PACKED = 'PACKED',
  SHIPPED = 'SHIPPED',
  DELIVERED = 'DELIVERED',
  CANCELLED = 'CANCELLED',
}

@domain.aggregate()
class Shipment extends BaseAggregate {
  @field.status({
    values: ShipmentState,
    default: ShipmentState.PENDING,
    transitions: { PENDING: ['PACKED', 'CANCELLED'], PACKED: ['SHIPPED', 'CANCELLED'], SHIPPED: ['DELIVERED'] },
  })
  state?: ShipmentState;
  @field.status({ values: ['RED', 'GREEN'] }) light?: 'RED' | 'GREEN';
}

describe('status fields', () => {
  it('accept a string enum as values and default to its default', () => {
    const s = Shipment.create({});
    expect(s.state).toBe('PENDING');
    expect(() => Shipment.create({ state: 'LOST' as ShipmentState })).toThrow(
      'Invalid Shipment: state: must be one of PENDING, PACKED, SHIPPED, DELIVERED, CANCELLED; got "LOST"',
    );
  });

  it('may be created in any state', () => {
    expect(Shipment.create({ state: ShipmentState.DELIVERED }).state).toBe('DELIVERED');
  });

  it('move along declared transitions', () => {
    const s = Shipment.create({});
    s.state = ShipmentState.PACKED;
    s.state = ShipmentState.SHIPPED;
    s.state = ShipmentState.SHIPPED; // staying put is not a move
    s.state = ShipmentState.DELIVERED;
    expect(s.state).toBe('DELIVERED');
  });

  it('refuse a move that is not declared, naming both states', () => {
    const s = Shipment.create({});
    let error: ValidationError | undefined;
    try {
      s.state = ShipmentState.SHIPPED;
    } catch (e) {
      error = e as ValidationError;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect(error!.errors.state).toEqual(['cannot move from PENDING to SHIPPED (allowed from PENDING: PACKED, CANCELLED)']);
    expect(s.state).toBe('PENDING');
  });

  it('treat states without outgoing transitions as final', () => {
    const s = Shipment.create({ state: ShipmentState.CANCELLED });
    expect(() => {
      s.state = ShipmentState.PENDING;
    }).toThrow('cannot move from CANCELLED to PENDING (CANCELLED is a final state)');
  });

  it('allow any move without transitions', () => {
    const s = Shipment.create({ light: 'RED' });
    s.light = 'GREEN';
    s.light = 'RED';
    expect(s.light).toBe('RED');
  });
});
