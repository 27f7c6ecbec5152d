/** Thousands of broken domain.toml files, at the fast tier's size (the property: broken-configs.properties.ts). */
import { describeBrokenConfigProperties } from './broken-configs.properties.js';

describeBrokenConfigProperties('fast');
