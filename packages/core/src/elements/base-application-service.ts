/** Coordinates a use case across aggregates; callers invoke its methods directly. */
export abstract class BaseApplicationService {}
