/** Generated values for every field kind, at the fast tier's size (the property: field-values.properties.ts). */
import { describeFieldValueProperties } from './field-values.properties.js';

describeFieldValueProperties('fast');
