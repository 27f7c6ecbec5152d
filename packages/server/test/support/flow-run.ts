/**
 * What each flow-control test starts (engines, a database, a broker of its own), stopped and
 * removed after every test of the describe that asked for it, and which brokers answer.
 */
import { afterEach } from 'vitest';
import { POSTGRES, servicesUp } from '@protean-ts/conformance';
import type { Engine } from '../../src/engine/engine.js';
import { FLOW_BROKER_SERVICES, type FlowBroker, type FlowBrokerName } from './flow-brokers.js';
import type { TempDatabase } from './real-services.js';

export const FLOW_BROKERS: FlowBrokerName[] = ['redis', 'rabbitmq', 'nats'];

/** Per broker: whether it and PostgreSQL answer (outside CI a test skips loudly when not). */
export async function flowBrokersUp(): Promise<Record<FlowBrokerName, boolean>> {
  const entries = await Promise.all(FLOW_BROKERS.map(async (name) => [name, await servicesUp(POSTGRES, FLOW_BROKER_SERVICES[name])] as const));
  return Object.fromEntries(entries) as Record<FlowBrokerName, boolean>;
}

export interface FlowRun {
  engines: Engine[];
  db: TempDatabase | null;
  broker: FlowBroker | null;
}

/** Call inside a describe: the run its tests fill is stopped, dropped and cleaned up after each. */
export function flowRun(): FlowRun {
  const run: FlowRun = { engines: [], db: null, broker: null };
  afterEach(async () => {
    await Promise.all(run.engines.splice(0).map((engine) => engine.stop()));
    await run.db?.drop();
    run.db = null;
    await run.broker?.cleanUp();
    run.broker = null;
  });
  return run;
}
