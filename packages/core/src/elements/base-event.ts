/** Something that happened in the domain, raised by an aggregate and delivered to event handlers. */
import { BaseMessage } from './base-message.js';

export abstract class BaseEvent extends BaseMessage {
  // Type-only: a private member makes events and commands distinct types for the decorators.
  declare private readonly eventBrand: never;
}
