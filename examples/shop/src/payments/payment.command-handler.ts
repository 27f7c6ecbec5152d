/** Handles the commands of the Payment aggregate: one charge per order, through the gateway. */
import { BaseCommandHandler, handle } from '@protean-ts/core';
import { domain } from '../shop.js';
import { ChargePayment } from './charge-payment.command.js';
import { Payment } from './payment.js';
import { chargeCard } from './payment-gateway.js';

@domain.commandHandler({ partOf: Payment })
export class PaymentCommands extends BaseCommandHandler {
  @handle(ChargePayment)
  async charge(command: ChargePayment): Promise<void> {
    const result = chargeCard(command.orderId, command.paymentMethod, command.amount);
    await domain.repositoryFor(Payment).add(Payment.fromGateway(command.orderId, command.amount, result));
  }
}
