/**
 * Which message types a handler subscription runs its handler for. Matched on the type without
 * its version (`Shop.PaymentCaptured`), so a stored older version (`….v1`) of an event the
 * handler handles as `….v2` reaches it and is upcast on the way; everything else is passed over
 * without deserializing it (a stream shared with another domain does no harm).
 */
import type { ClassRef, Domain } from '@protean-ts/core';

const VERSION_SUFFIX = /\.v\d+$/;

export function handledTypes(domain: Domain, handler: ClassRef): (type: unknown) => boolean {
  const names = new Set([...domain.registry.handlerMethodsOf(handler).keys()].map((type) => type.replace(VERSION_SUFFIX, '')));
  // An envelope without a string type is not ours to judge: handleMessage refuses it by name.
  return (type) => typeof type !== 'string' || names.has(type.replace(VERSION_SUFFIX, ''));
}
