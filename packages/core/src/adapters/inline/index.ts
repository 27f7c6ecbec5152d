/** The in-process `inline` broker; importing this module registers it. */
import { registerBroker } from '../registry.js';
import { InlineBroker } from './inline-broker.js';

registerBroker('inline', (name, settings) => new InlineBroker(name, settings));

export { InlineBroker, INLINE_DEFAULT_MAXLEN } from './inline-broker.js';
