/** The Redis entry codec against arbitrary stream entries, at the fast tier's size (the properties: redis-entry-codec.properties.ts). */
import { describeEntryCodecProperties } from './redis-entry-codec.properties.js';

describeEntryCodecProperties('fast');
