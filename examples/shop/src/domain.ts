/**
 * The shop's domain with every element registered: the module the CLI loads (the `module` key
 * of domain.toml) and the one applications import. Orders, inventory and payments are separate
 * aggregates; the fulfilment process manager follows their events and moves each order along
 * with commands.
 */
export { domain } from './shop.js';
export * from './shared/index.js';
export * from './orders/index.js';
export * from './inventory/index.js';
export * from './payments/index.js';
export * from './fulfilment/index.js';
export * from './tracking/index.js';
