/** Keeps one projection up to date: its `@on(Event)` methods write it, one event per unit of work. */
export abstract class BaseProjector {}
