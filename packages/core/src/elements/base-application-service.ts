/**
 * The application's entry points: each use case loads aggregates, runs the domain logic and
 * saves them. Methods marked `@useCase()` run in a unit of work (docs/queries.md).
 */
export abstract class BaseApplicationService {}
