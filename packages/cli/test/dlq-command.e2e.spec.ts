/**
 * The `dlq` commands, one operator workflow run on each broker (Redis Streams, NATS JetStream and
 * RabbitMQ, each project on its own stream prefix or virtual host): list, replay and purge what a
 * subscription dead-lettered. On Redis also a stream entry another producer wrote in its own
 * format, which the server sets aside undecoded.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRabbitmqVhost, deleteRabbitmqVhost, NATS, POSTGRES, RABBITMQ, rabbitmqUri, REDIS, servicesUp } from '@protean-ts/conformance';
import { deleteNatsStreams } from './nats-cleanup.js';
import { runCli } from './run-cli.js';
import { serverProject, type ServerProject, type ServerProjectOptions } from './server-project.js';

const BROKERS = [
  { broker: 'redis' as const, up: await servicesUp(POSTGRES, REDIS) },
  { broker: 'nats' as const, up: await servicesUp(POSTGRES, NATS) },
  { broker: 'rabbitmq' as const, up: await servicesUp(POSTGRES, RABBITMQ) },
];

for (const { broker, up } of BROKERS)
  describe.skipIf(!up)(`protean-ts dlq list | replay | purge on ${broker}`, () => {
    let project: ServerProject;
    let vhost: string | undefined;
    const cli = (...args: string[]) => runCli(args, { cwd: project.cwd, timeoutMs: 90_000 });
    const brokerOptions = async (): Promise<ServerProjectOptions> => {
      if (broker === 'nats') return { broker: 'nats' };
      if (broker === 'redis') return {};
      vhost = await createRabbitmqVhost('cli-dlq');
      return { brokerLines: ['provider = "rabbitmq"', `uri = "${rabbitmqUri(vhost)}"`] };
    };

    beforeAll(async () => {
      project = await serverProject(await brokerOptions());
      const setup = await cli('db', 'setup');
      expect(setup.code, setup.stderr).toBe(0);
      await project.seed(['Ann', 'poison']);
      // Receipts fails for "poison" on both attempts (max_retries = 1), so the message is dead-lettered.
      const server = await cli('server', '--test-mode');
      expect(server.code, server.stderr).toBe(0);
    }, 120_000);
    afterAll(async () => {
      await project?.drop();
      if (project && broker === 'nats') await deleteNatsStreams(project.streamPrefix);
      if (vhost) await deleteRabbitmqVhost(vhost);
    });

    it('list without a target counts dead letters per stream and subscription', async () => {
      const { code, stdout } = await cli('dlq', 'list');
      expect(code).toBe(0);
      expect(stdout).toContain('default:shop::order:command  0 dead letters');
      expect(stdout).toContain('default:shop::order  1 dead letter (Receipts: 1)');
      expect(stdout).toContain('dlq list: 1 dead letter in 2 streams');
    }, 120_000);

    it("list <subscription> shows each dead letter with the handler's error", async () => {
      const { code, stdout } = await cli('dlq', 'list', 'Receipts');
      expect(code).toBe(0);
      expect(stdout).toMatch(/\S+ {2}Receipts {2}Shop\.OrderPlaced\.v1 \S+ {2}failed \S+ {2}deliveries 1/);
      expect(stdout).toContain('Error: cannot write a receipt for poison');
      expect(stdout).toContain('dlq list: 1 dead letter for subscription Receipts on stream shop::order');
      const json = JSON.parse((await cli('dlq', 'list', 'Receipts', '--json')).stdout) as {
        total: number;
        letters: { envelope: { data: { customer: string } } }[];
      };
      expect(json.total).toBe(1);
      expect(json.letters[0]!.envelope.data.customer).toBe('poison');
    }, 120_000);

    it('replay publishes the dead letter back to its stream, where the subscription handles it again', async () => {
      const { code, stdout } = await cli('dlq', 'replay', 'Receipts');
      expect(code).toBe(0);
      expect(stdout).toContain('dlq replay: 1 dead letter published back to default:shop::order');
      expect((await cli('dlq', 'list', 'Receipts')).stdout).toContain('dlq list: 0 dead letters');
      // Still poison: the next server run fails it again and it is back in the dead letters.
      const server = await cli('server', '--test-mode');
      expect(server.code, server.stderr).toBe(0);
      expect(server.stderr).toContain('"msg":"message moved to the dead-letter stream"');
      expect((await cli('dlq', 'list', 'Receipts')).stdout).toContain('dlq list: 1 dead letter for subscription Receipts');
      expect(await project.receipts()).toEqual(['Ann']);
    }, 120_000);

    it('purge asks for -y without a terminal, then deletes the dead letters of the stream', async () => {
      const refused = await cli('dlq', 'purge', 'Receipts');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('pass -y to go ahead');
      const { code, stdout } = await cli('dlq', 'purge', 'shop::order', '-y');
      expect(code).toBe(0);
      expect(stdout).toContain('dlq purge: 1 dead letter deleted from default:shop::order');
      expect((await cli('dlq', 'list')).stdout).toContain('dlq list: 0 dead letters in 2 streams');
    }, 120_000);

    it.skipIf(broker !== 'redis')(
      'lists a stream entry the broker could not decode as such, and does not replay it',
      async () => {
        // Another producer writes its own format into the subscribed stream; the server sets it aside.
        execFileSync('redis-cli', ['XADD', `${project.streamPrefix}shop::order`, '*', 'payment', 'p-0']);
        const server = await cli('server', '--test-mode');
        expect(server.code, server.stderr).toBe(0);
        expect(server.stderr).toContain('"msg":"undecodable stream entry moved to the dead-letter stream"');
        const list = await cli('dlq', 'list', 'Receipts');
        expect(list.stdout).toMatch(/\S+ {2}Receipts {2}kept as it came \(no envelope\) {2}failed/);
        expect(list.stdout).toContain('cannot be decoded: it has no "envelope" field');
        const json = JSON.parse((await cli('dlq', 'list', 'Receipts', '--json')).stdout) as { letters: { envelope: unknown; rawFields: string[] }[] };
        expect(json.letters.map((l) => [l.envelope, l.rawFields])).toEqual([[null, ['payment', 'p-0']]]);
        const replay = await cli('dlq', 'replay', 'Receipts');
        expect(replay.code).toBe(0);
        expect(replay.stderr).toContain('note: not replaying 1 dead letter holding a stream entry that could not be decoded');
        expect(replay.stdout).toContain('dlq replay: nothing to replay for Receipts');
        expect((await cli('dlq', 'list', 'Receipts')).stdout).toContain('dlq list: 1 dead letter for subscription Receipts');
      },
      120_000,
    );

    it.skipIf(broker !== 'redis')(
      'refuses --broker naming no broker of the domain, listing the brokers (exit 2)',
      async () => {
        const { code, stdout, stderr } = await cli('dlq', 'replay', 'shop::order', '--broker', 'nope');
        expect(code).toBe(2);
        expect(stderr).toContain('--broker "nope" is no broker of this domain (brokers: default)');
        expect(stdout).toBe('');
      },
      120_000,
    );

    it.skipIf(broker !== 'redis')(
      'refuses an empty target and a blank --id as usage errors (exit 2), before reading any dead letters',
      async () => {
        const target = await cli('dlq', 'replay', '');
        expect(target.code, target.stderr).toBe(2);
        expect(target.stderr).toContain('dlq replay: <target> is empty; give one, e.g. dlq replay Receipts (a subscription)');
        const id = await cli('dlq', 'replay', 'Receipts', '--id', ' ');
        expect(id.code, id.stderr).toBe(2);
        expect(id.stderr).toContain('dlq replay: --id is only whitespace; give one');
        expect(target.stdout + id.stdout).toBe('');
      },
      120_000,
    );

    it('says so when the target is neither a subscription nor a stream it knows', async () => {
      const { code, stdout, stderr } = await cli('dlq', 'replay', 'Recepits');
      expect(code).toBe(0);
      expect(stderr).toContain('note: "Recepits" is no subscription and no stream a subscription reads');
      expect(stderr).toContain('subscriptions: OrderCommands, Receipts');
      expect(stdout).toContain('dlq replay: nothing to replay for Recepits');
    }, 120_000);
  });
