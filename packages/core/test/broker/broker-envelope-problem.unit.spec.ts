import { describe, expect, it } from 'vitest';
import { BrokerArgumentError, brokerEnvelopeProblem, InlineBroker, type MessageEnvelope } from '../../src/index.js';
import { sampleBrokerEnvelope } from '@protean-ts/conformance';

const withData = (data: unknown) => ({ ...sampleBrokerEnvelope('s'), data });
const withHeaders = (headers: Record<string, unknown>) => {
  const envelope = sampleBrokerEnvelope('s');
  return { ...envelope, metadata: { ...envelope.metadata, headers: { ...envelope.metadata.headers, ...headers } } };
};

describe('brokerEnvelopeProblem: what a broker must not hand out', () => {
  it('accepts an envelope the broker calls can carry', () => {
    expect(brokerEnvelopeProblem(sampleBrokerEnvelope('s'))).toBeNull();
  });

  it.each([
    ['a number', 42, 'is not a { data, metadata } object (got a number)'],
    ['an array', [], 'is not a { data, metadata } object (got an array)'],
    ['data as an array', withData(['a']), 'is malformed: "data" must be an object, got an array'],
    ['data as a string', withData('a'), 'is malformed: "data" must be an object, got a string'],
    ['no data', withData(undefined), 'is malformed: "data" must be an object, got nothing'],
    ['no headers', { data: {}, metadata: {} }, 'has no metadata.headers'],
    ['a blank id', withHeaders({ id: '  ' }), 'has no metadata.headers.id'],
    ['no type', withHeaders({ type: undefined }), 'has no metadata.headers.type'],
    ['nesting past 200 levels', withData(JSON.parse(`{"deep":${'['.repeat(300)}${']'.repeat(300)}}`)), 'nests deeper than 200 levels'],
  ])('names %s', (_what, value, problem) => {
    expect(brokerEnvelopeProblem(value)).toBe(problem);
  });

  // The point of the rule: what it lets through, deadLetter takes (else a message is stuck pending).
  it.each([withData(['a']), withData('a'), withHeaders({ id: ' ' }), withHeaders({ type: 7 })])(
    'refuses every envelope deadLetter refuses',
    async (envelope) => {
      const broker = new InlineBroker('rule');
      await broker.ensureGroup('s', 'g');
      const message = { id: '1-0', stream: 's', envelope: envelope as unknown as MessageEnvelope, deliveryCount: 1 };
      expect(brokerEnvelopeProblem(envelope)).not.toBeNull();
      await expect(broker.deadLetter('s', 'g', message, 'x')).rejects.toThrow(BrokerArgumentError);
      await broker.close();
    },
  );
});
