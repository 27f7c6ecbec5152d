/** A hostile producer writing into a subscription's Redis stream, at the fast tier's size (malformed-entries.properties.ts). */
import { describeMalformedEntryProperties } from './malformed-entries.properties.js';

describeMalformedEntryProperties('fast');
