/** Tracking: each order's timeline, a projection kept from the Order stream, and the query that reads it. */
export { OrderTimeline, type TimelineStepAt } from './order-timeline.js';
export { TimelineEntry, type TimelineStep } from './timeline-entry.js';
export { OrderTimelineProjector } from './order-timeline.projector.js';
export { TimelineOfOrder, TimelineQueries, type TimelineView } from './timeline.queries.js';
