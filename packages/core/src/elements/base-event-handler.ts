/** Reacts to the events of a stream category: after commit (sync) or through a subscription (async). */
export abstract class BaseEventHandler {}
