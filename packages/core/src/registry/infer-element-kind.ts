/**
 * The element kind a class's base implies, so `domain.register(Order)` needs no kind, and a
 * decorator on the wrong base fails at once.
 */
import type { ClassRef } from '../fields/field-definition.js';
import type { ElementKind } from '../elements/element-kind.js';
import { BaseAggregate } from '../elements/base-aggregate.js';
import { BaseEntity } from '../elements/base-entity.js';
import { BaseValueObject } from '../elements/base-value-object.js';
import { BaseEvent } from '../elements/base-event.js';
import { BaseCommand } from '../elements/base-command.js';
import { BaseCommandHandler } from '../elements/base-command-handler.js';
import { BaseEventHandler } from '../elements/base-event-handler.js';
import { BaseApplicationService } from '../elements/base-application-service.js';
import { BaseRepository } from '../repository/base-repository.js';
import { BaseSubscriber } from '../elements/base-subscriber.js';
import { BaseQuery } from '../elements/base-query.js';
import { BaseQueryHandler } from '../elements/base-query-handler.js';
import { BaseDomainService } from '../elements/base-domain-service.js';
import { BaseProcessManager } from '../elements/base-process-manager.js';
import { BaseProjection } from '../elements/base-projection.js';
import { BaseProjector } from '../elements/base-projector.js';

// Most specific first: a projection is also an aggregate, an aggregate also an entity.
const BASES: ReadonlyArray<readonly [abstract new (...args: never[]) => unknown, ElementKind]> = [
  [BaseProjection, 'projection'],
  [BaseProjector, 'projector'],
  [BaseAggregate, 'aggregate'],
  [BaseEntity, 'entity'],
  [BaseValueObject, 'valueObject'],
  [BaseEvent, 'event'],
  [BaseCommand, 'command'],
  [BaseCommandHandler, 'commandHandler'],
  [BaseEventHandler, 'eventHandler'],
  [BaseApplicationService, 'applicationService'],
  [BaseRepository, 'repository'],
  [BaseSubscriber, 'subscriber'],
  [BaseQuery, 'query'],
  [BaseQueryHandler, 'queryHandler'],
  [BaseDomainService, 'domainService'],
  [BaseProcessManager, 'processManager'],
];

export function inferElementKind(cls: ClassRef): ElementKind | undefined {
  for (const [base, kind] of BASES) if (cls.prototype instanceof base) return kind;
  return undefined;
}
