/**
 * The shop's domain with every element registered: the module the CLI loads (the `module` key
 * of domain.toml) and the one applications import. Orders, inventory and payments are separate
 * aggregates that only talk through events.
 */
export { domain } from './shop.js';

// With event_processing = "sync", handlers of an event run one after the other in registration
// order, and each one's own events are handled before the next handler starts. Tracking comes
// first so an order's timeline records each step before the reactions to it produce the next.
export * from './tracking/index.js';
export * from './shared/index.js';
export * from './orders/index.js';
export * from './inventory/index.js';
export * from './payments/index.js';
