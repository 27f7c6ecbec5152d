/** Tracking: each order's timeline, a read model kept from the Order stream. */
export { OrderTimeline, type TimelineStepAt } from './order-timeline.js';
export { TimelineEntry, type TimelineStep } from './timeline-entry.js';
export { OrderTimelineProjector } from './order-timeline.projector.js';
export { TimelineOfOrder, TimelineQueries, type TimelineView } from './timeline.queries.js';
