/**
 * Events and commands: immutable data plus metadata (`_metadata`) stamped when an event is
 * raised or a command processed, and restored when a message is received.
 */
import type { BuildMode } from '../fields/field-coercion.js';
import type { MessageMetadata } from '../messages/envelope.js';
import { BaseDataElement } from './base-data-element.js';
import { plainEquals } from './element-plain.js';
import { AFTER_BUILD, installHooks, type FromPlainOptions } from './element-hooks.js';
import { stateOf } from './element-state.js';

export abstract class BaseMessage extends BaseDataElement {
  /** Headers, envelope and domain metadata; undefined until raised, processed or received. */
  get _metadata(): MessageMetadata | undefined {
    return stateOf(this).metadata;
  }

  /** Same class and same data (and the same message id when both have one). */
  equals(other: unknown): boolean {
    if (!(other instanceof BaseMessage) || other.constructor !== this.constructor) return false;
    const a = this._metadata?.headers.id;
    const b = other._metadata?.headers.id;
    if (a && b && a !== b) return false;
    return plainEquals(this.toPlain(), other.toPlain());
  }
}

installHooks(BaseMessage.prototype, {
  [AFTER_BUILD](this: BaseMessage, _mode: BuildMode, options: FromPlainOptions): void {
    if (options.metadata) stateOf(this).metadata = options.metadata;
  },
});
