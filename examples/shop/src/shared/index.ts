/** Value objects every part of the shop uses. */
export { Money } from './money.js';
export { Address } from './address.js';
