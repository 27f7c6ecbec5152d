/** The in-process `inline` broker; importing this module registers it. */
import { INLINE_BROKER_SETTINGS } from '../../config/known-providers.js';
import { registerBroker } from '../registry.js';
import { InlineBroker } from './inline-broker.js';

registerBroker('inline', (name, settings) => new InlineBroker(name, settings), { settings: INLINE_BROKER_SETTINGS });

export { InlineBroker, INLINE_DEFAULT_MAXLEN } from './inline-broker.js';
