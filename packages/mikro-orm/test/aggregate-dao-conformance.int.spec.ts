/** Core's AggregateDao conformance suite, run against PostgreSQL: the memory provider's behaviour, for real. */
import { afterAll, beforeAll, describe } from 'vitest';
import { describeAggregateDaoConformance, servicesUp, POSTGRES } from '@protean-ts/conformance';
import { ProviderFixture } from './support/postgres-provider-fixture.js';

const up = await servicesUp(POSTGRES);

describe.skipIf(!up)('PostgreSQL provider', () => {
  const fixture = new ProviderFixture();
  beforeAll(() => fixture.start());
  afterAll(() => fixture.stop());
  describeAggregateDaoConformance('postgresql', { open: (schemas) => fixture.fresh(schemas) });
});
