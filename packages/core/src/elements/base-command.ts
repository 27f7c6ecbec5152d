/** An intention to change the domain, handled by exactly one command handler. */
import { BaseMessage } from './base-message.js';

export abstract class BaseCommand extends BaseMessage {
  // Type-only: a private member makes events and commands distinct types for the decorators.
  declare private readonly commandBrand: never;
}
