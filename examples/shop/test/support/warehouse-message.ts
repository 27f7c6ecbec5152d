/** A delivery as the warehouse system publishes it on its stream: a broker envelope around its own data. */
import { randomUUID } from 'node:crypto';

export function warehouseDelivery(data: Record<string, unknown>): { data: Record<string, unknown>; metadata: { headers: { id: string; type: string } } } {
  return { data, metadata: { headers: { id: randomUUID(), type: 'Warehouse.DeliveryArrived.v1' } } };
}
