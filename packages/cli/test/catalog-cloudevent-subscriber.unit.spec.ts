/**
 * `protean-ts catalog` lists a CloudEventSubscriber as a consumer of the event class its
 * `@onCloudEvent` methods build from another system's CloudEvents, with the CloudEvents types,
 * instead of "nothing in this domain".
 */
import { describe, expect, it } from 'vitest';
import { BaseAggregate, BaseEvent, CloudEventSubscriber, Domain, field, onCloudEvent } from '@protean-ts/core';
import { messageCatalog } from '../src/contracts/catalog.js';
import { renderCatalogMarkdown, renderCatalogText } from '../src/contracts/catalog-render.js';

const billing = new Domain('Billing');
@billing.aggregate()
class Invoice extends BaseAggregate {
  @field.string() customer?: string;
}
@billing.event({ partOf: Invoice })
class PaymentCaptured extends BaseEvent {
  @field.string({ required: true }) paymentId!: string;
}
@billing.event({ partOf: Invoice })
class InvoiceIssued extends BaseEvent {
  @field.string({ required: true }) invoiceId!: string;
}
@billing.subscriber({ stream: 'payments', broker: 'gateway' })
class GatewayPayments extends CloudEventSubscriber {
  @onCloudEvent('com.gateway.payment.captured', PaymentCaptured)
  async captured(): Promise<void> {}
  @onCloudEvent('com.gateway.payment.settled', PaymentCaptured)
  async settled(): Promise<void> {}
}
void [InvoiceIssued, GatewayPayments];

describe('catalog of a domain with a CloudEventSubscriber', () => {
  const catalog = messageCatalog(billing);

  it('lists the subscriber as the consumer of the event it builds, with its CloudEvents types', () => {
    const captured = catalog.events.find((e) => e.name === 'PaymentCaptured')!;
    expect(captured.consumers).toEqual([
      {
        kind: 'subscriber',
        name: 'GatewayPayments',
        methods: ['captured', 'settled'],
        cloudEventTypes: ['com.gateway.payment.captured', 'com.gateway.payment.settled'],
      },
    ]);
    expect(catalog.events.find((e) => e.name === 'InvoiceIssued')!.consumers).toEqual([]);
  });

  it('prints it in the text and Markdown catalogs', () => {
    const line = 'subscriber GatewayPayments.captured/settled (CloudEvents com.gateway.payment.captured, com.gateway.payment.settled)';
    expect(renderCatalogText(catalog)).toContain(`consumed by: ${line}`);
    expect(renderCatalogMarkdown(catalog)).toContain(line);
  });
});
