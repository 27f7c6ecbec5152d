/**
 * Two versions of one domain for `schema check`'s verdict table: each event or command of the
 * new version differs from the old one in one way (a rename, a type change, a version bump with
 * or without upcaster, ...), so each row of the table checks one kind of change.
 */
import { BaseAggregate, BaseCommand, BaseEvent, BaseValueObject, Domain, field } from '@protean-ts/core';

export const before = new Domain('Bank');
export const after = new Domain('Bank');

@before.aggregate({ streamCategory: 'bank::account' })
class AccountV1 extends BaseAggregate {
  @field.string() owner!: string;
}
@after.aggregate({ streamCategory: 'bank::account' })
class AccountV2 extends BaseAggregate {
  @field.string() owner!: string;
}

@before.valueObject()
class AmountV1 extends BaseValueObject {
  @field.decimal({ required: true }) value!: number;
}
@after.valueObject()
class AmountV2 extends BaseValueObject {
  @field.decimal({ required: true }) value!: number;
  @field.string({ required: true }) currency!: string;
}

// --- the old version ------------------------------------------------------------------------
@before.event({ partOf: AccountV1, name: 'Renamed', published: true })
export class RenamedV1 extends BaseEvent {
  @field.decimal({ required: true }) amount!: number;
}
@before.event({ partOf: AccountV1, name: 'TypeChanged' })
export class TypeChangedV1 extends BaseEvent {
  @field.integer({ required: true }) quantity!: number;
}
@before.event({ partOf: AccountV1, name: 'Widened' })
export class WidenedV1 extends BaseEvent {
  @field.integer({ required: true }) rate!: number;
}
@before.event({ partOf: AccountV1, name: 'OptionalAdded', published: true })
export class OptionalAddedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@before.event({ partOf: AccountV1, name: 'RequiredAdded' })
export class RequiredAddedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@before.event({ partOf: AccountV1, name: 'DefaultedAdded' })
export class DefaultedAddedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@before.event({ partOf: AccountV1, name: 'RequiredRemoved', published: true })
export class RequiredRemovedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.string({ required: true }) branch!: string;
}
@before.event({ partOf: AccountV1, name: 'OptionalRemoved' })
export class OptionalRemovedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.string() note!: string;
}
@before.event({ partOf: AccountV1, name: 'Upcast' })
export class UpcastV1 extends BaseEvent {
  @field.decimal({ required: true }) amount!: number;
}
@before.event({ partOf: AccountV1, name: 'NotUpcast' })
export class NotUpcastV1 extends BaseEvent {
  @field.decimal({ required: true }) amount!: number;
}
@before.event({ partOf: AccountV1, name: 'PublishedRemoved', published: true })
export class PublishedRemovedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@before.event({ partOf: AccountV1, name: 'InternalRemoved' })
export class InternalRemovedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@before.event({ partOf: AccountV1, name: 'Tightened' })
export class TightenedV1 extends BaseEvent {
  @field.string({ required: true, maxLength: 100 }) memo!: string;
}
@before.event({ partOf: AccountV1, name: 'Loosened', published: true })
export class LoosenedV1 extends BaseEvent {
  @field.integer({ required: true, min: 1, max: 10 }) tier!: number;
}
@before.event({ partOf: AccountV1, name: 'ChoicesExtended' })
export class ChoicesExtendedV1 extends BaseEvent {
  @field.string({ required: true, choices: ['gold', 'silver'] }) level!: string;
}
@before.event({ partOf: AccountV1, name: 'MadeRequired' })
export class MadeRequiredV1 extends BaseEvent {
  @field.string() reference!: string;
}
@before.event({ partOf: AccountV1, name: 'Unpublished', published: true })
export class UnpublishedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@before.event({ partOf: AccountV1, name: 'Nested' })
export class NestedV1 extends BaseEvent {
  @field.valueObject(() => AmountV1, { required: true }) amount!: AmountV1;
}
@before.event({ partOf: AccountV1, name: 'Moved' })
export class MovedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@before.event({ partOf: AccountV1, name: 'Unchanged', published: true })
export class UnchangedV1 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@before.command({ partOf: AccountV1, name: 'OpenAccount' })
export class OpenAccountV1 extends BaseCommand {
  @field.string({ required: true }) owner!: string;
}

// --- the new version ------------------------------------------------------------------------
@after.event({ partOf: AccountV2, name: 'Renamed', published: true })
export class RenamedV2 extends BaseEvent {
  @field.decimal({ required: true }) total!: number;
}
@after.event({ partOf: AccountV2, name: 'TypeChanged' })
export class TypeChangedV2 extends BaseEvent {
  @field.string({ required: true }) quantity!: string;
}
@after.event({ partOf: AccountV2, name: 'Widened' })
export class WidenedV2 extends BaseEvent {
  @field.float({ required: true }) rate!: number;
}
@after.event({ partOf: AccountV2, name: 'OptionalAdded', published: true })
export class OptionalAddedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.text() note!: string;
}
@after.event({ partOf: AccountV2, name: 'RequiredAdded' })
export class RequiredAddedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.string({ required: true }) reason!: string;
}
@after.event({ partOf: AccountV2, name: 'DefaultedAdded' })
export class DefaultedAddedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
  @field.string({ required: true, default: 'web' }) channel!: string;
}
@after.event({ partOf: AccountV2, name: 'RequiredRemoved', published: true })
export class RequiredRemovedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@after.event({ partOf: AccountV2, name: 'OptionalRemoved' })
export class OptionalRemovedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@after.event({ partOf: AccountV2, name: 'Upcast', version: 2 })
export class UpcastV2 extends BaseEvent {
  @field.decimal({ required: true }) amountInCents!: number;
}
@after.upcaster({ event: UpcastV2, from: 1, to: 2 })
export class UpcastV1ToV2 {
  upcast(data: Record<string, unknown>): Record<string, unknown> {
    return { amountInCents: Number(data.amount) * 100 };
  }
}
@after.event({ partOf: AccountV2, name: 'NotUpcast', version: 2 })
export class NotUpcastV2 extends BaseEvent {
  @field.decimal({ required: true }) amount!: number;
}
@after.event({ partOf: AccountV2, name: 'Tightened' })
export class TightenedV2 extends BaseEvent {
  @field.string({ required: true, maxLength: 50 }) memo!: string;
}
@after.event({ partOf: AccountV2, name: 'Loosened', published: true })
export class LoosenedV2 extends BaseEvent {
  @field.integer({ required: true, min: 1, max: 100 }) tier!: number;
}
@after.event({ partOf: AccountV2, name: 'ChoicesExtended' })
export class ChoicesExtendedV2 extends BaseEvent {
  @field.string({ required: true, choices: ['gold', 'silver', 'bronze'] }) level!: string;
}
@after.event({ partOf: AccountV2, name: 'MadeRequired' })
export class MadeRequiredV2 extends BaseEvent {
  @field.string({ required: true }) reference!: string;
}
@after.event({ partOf: AccountV2, name: 'Unpublished' })
export class UnpublishedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@after.event({ partOf: AccountV2, name: 'Nested' })
export class NestedV2 extends BaseEvent {
  @field.valueObject(() => AmountV2, { required: true }) amount!: AmountV2;
}
@after.event({ partOf: AccountV2, name: 'Moved', streamCategory: 'bank::transfers' })
export class MovedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@after.event({ partOf: AccountV2, name: 'Unchanged', published: true })
export class UnchangedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@after.event({ partOf: AccountV2, name: 'Added', published: true })
export class AddedV2 extends BaseEvent {
  @field.identifier({ required: true }) accountId!: string;
}
@after.command({ partOf: AccountV2, name: 'OpenAccount', version: 2 })
export class OpenAccountV2 extends BaseCommand {
  @field.string({ required: true }) owner!: string;
}
