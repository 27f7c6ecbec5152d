/** One registered upcaster: its class and the options of its `@domain.upcaster(...)`. */
import type { UpcasterClass, UpcasterOptions } from '../elements/upcaster.js';

export interface UpcasterEntry extends UpcasterOptions {
  readonly cls: UpcasterClass;
}
