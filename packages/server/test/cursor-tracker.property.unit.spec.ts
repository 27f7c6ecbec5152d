/** The resume cursor of event-store subscriptions as a property, at the fast tier's size (cursor-tracker.properties.ts). */
import { describeCursorTrackerProperties } from './cursor-tracker.properties.js';

describeCursorTrackerProperties('fast');
