/** The kinds of element a Domain registers; the registry keeps one map per kind. */
export type ElementKind =
  | 'aggregate'
  | 'entity'
  | 'valueObject'
  | 'event'
  | 'command'
  | 'commandHandler'
  | 'eventHandler'
  | 'applicationService'
  | 'repository'
  | 'subscriber'
  | 'query'
  | 'queryHandler'
  | 'domainService'
  | 'processManager'
  | 'projection'
  | 'projector';
