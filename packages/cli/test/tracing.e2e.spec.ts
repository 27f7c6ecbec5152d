/**
 * One trace across processes: the test process (an HTTP request span of "user code") queues a
 * command through the PostgreSQL outbox; a real `protean-ts server` process, with an
 * OpenTelemetry SDK preloaded the documented way (`NODE_OPTIONS=--import ./tracing.mjs`),
 * (two workers) relays it through Redis and runs the command handler and the event handler its
 * event reaches.
 * The server's spans, exported to a file by the preload, must continue the test's trace.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureLogging, SpanNames, type Domain } from '@protean-ts/core';
import { POSTGRES, REDIS, servicesUp } from '@protean-ts/conformance';
import { startInMemoryTracing, type InMemoryTracing } from '../../core/test/support/in-memory-tracing.js';
import { runCli } from './run-cli.js';
import { serverProject, type ServerProject } from './server-project.js';

const up = await servicesUp(POSTGRES, REDIS);

/** What a user puts in tracing.mjs, with a tiny exporter writing JSON lines where the test reads them. */
const TRACING_PRELOAD = `
import fs from 'node:fs';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const file = process.env.PROTEAN_TEST_SPANS_FILE;
class JsonLinesExporter {
  export(spans, done) {
    for (const span of spans) {
      const context = span.spanContext();
      fs.appendFileSync(file, JSON.stringify({
        name: span.name,
        traceId: context.traceId,
        spanId: context.spanId,
        parentSpanId: span.parentSpanContext?.spanId ?? null,
        attributes: span.attributes,
        links: span.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
        status: span.status.code,
        pid: process.pid,
      }) + '\\n');
    }
    done({ code: 0 });
  }
  shutdown() { return Promise.resolve(); }
}

new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new JsonLinesExporter())] }).register();
`;

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status: number;
  pid: number;
}

/** The monorepo's node_modules/@opentelemetry, which the temp project's preload imports from. */
const OPENTELEMETRY_MODULES = path.join(fileURLToPath(new URL('../../..', import.meta.url)), 'node_modules/@opentelemetry');

describe.skipIf(!up)('one trace from a request in this process through the outbox, Redis and a server process', () => {
  let project: ServerProject;
  let tracing: InMemoryTracing;
  beforeAll(async () => {
    project = await serverProject();
    fs.writeFileSync(path.join(project.cwd, 'tracing.mjs'), TRACING_PRELOAD);
    fs.symlinkSync(OPENTELEMETRY_MODULES, path.join(project.cwd, 'node_modules/@opentelemetry'), 'dir');
    const setup = await runCli(['db', 'setup'], { cwd: project.cwd });
    expect(setup.code, setup.stderr).toBe(0);
    tracing = startInMemoryTracing();
  }, 90_000);
  afterAll(async () => {
    await tracing?.stop();
    await project?.drop();
  });

  it("the server's handler spans continue the trace of the request that queued the command", async () => {
    // This process: the shop domain on PostgreSQL and Redis, a command queued inside a request span.
    const shop = (await import(pathToFileURL(path.join(project.cwd, 'domain.ts')).href)) as { domain: Domain; PlaceOrder: { create(data: object): never } };
    const restoreLogging = configureLogging({ sink: () => {} });
    await shop.domain.init();
    let request!: { traceId: string; spanId: string };
    try {
      await trace.getTracer('test-http').startActiveSpan('HTTP POST /orders', async (span) => {
        request = span.spanContext();
        await shop.domain.process(shop.PlaceOrder.create({ customer: 'Ann' }), { asynchronous: true });
        span.end();
      });
    } finally {
      await shop.domain.close();
      configureLogging(restoreLogging);
    }
    const command = tracing.one(SpanNames.commandProcess);
    expect(command.parentSpanContext?.spanId).toBe(request.spanId);
    // Stored with the message in its outbox row.
    const [queued] = await project.query<{ metadata: { headers: { traceparent: string } } }>('SELECT metadata FROM protean_outbox');
    expect(queued!.metadata.headers.traceparent).toBe(`00-${request.traceId}-${command.spanContext().spanId}-01`);

    // Another process: the server relays and handles everything, exporting its spans to a file.
    const spansFile = path.join(project.cwd, 'spans.jsonl');
    // Two workers: the preload reaches every forked worker through the inherited NODE_OPTIONS.
    const server = await runCli(['server', '--workers', '2', '--test-mode', '--test-mode-timeout', '60'], {
      cwd: project.cwd,
      env: { NODE_OPTIONS: '--import ./tracing.mjs', PROTEAN_TEST_SPANS_FILE: spansFile },
      timeoutMs: 90_000,
    });
    expect(server.code, server.stderr).toBe(0);
    expect(await project.receipts()).toEqual(['Ann']);

    const spans = fs
      .readFileSync(spansFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ExportedSpan);
    expect(spans.some((span) => span.pid === process.pid)).toBe(false);
    const handlers = spans.filter((span) => span.name === SpanNames.handlerExecute);
    const commandHandler = handlers.find((span) => span.attributes['protean.handler'] === 'OrderCommands')!;
    const eventHandler = handlers.find((span) => span.attributes['protean.handler'] === 'Receipts')!;

    // request (this process) <- protean.command.process (this process) <- OrderCommands (server) <- Receipts (server)
    expect(commandHandler).toMatchObject({ traceId: request.traceId, parentSpanId: command.spanContext().spanId });
    expect(commandHandler.attributes).toMatchObject({
      'messaging.operation.type': 'process',
      'protean.handler.kind': 'commandHandler',
      'protean.message.type': 'Shop.PlaceOrder.v1',
      'messaging.consumer.group.name': expect.any(String),
      'protean.handler.outcome': 'handled',
    });
    expect(eventHandler).toMatchObject({ traceId: request.traceId, parentSpanId: commandHandler.spanId });
    expect(eventHandler.attributes).toMatchObject({ 'protean.handler.kind': 'eventHandler', 'protean.message.type': 'Shop.OrderPlaced.v1' });
    // The command handler's unit of work committed under its span.
    const commit = spans.find((span) => span.name === SpanNames.uowCommit && span.parentSpanId === commandHandler.spanId);
    expect(commit?.attributes).toMatchObject({ 'protean.aggregate': ['Order'], 'protean.event_count': 1 });

    // The outbox batches are traces of their own, linked to what produced each message.
    const publishes = spans.filter((span) => span.name === SpanNames.outboxPublish);
    const links = publishes.flatMap((span) => span.links);
    expect(links).toContainEqual({ traceId: request.traceId, spanId: command.spanContext().spanId });
    expect(links).toContainEqual({ traceId: request.traceId, spanId: commandHandler.spanId });
    for (const publish of publishes) expect(publish.traceId).not.toBe(request.traceId);
    const redisPublish = spans.find((span) => span.name === SpanNames.brokerPublish && publishes.some((p) => p.spanId === span.parentSpanId));
    expect(redisPublish?.attributes['messaging.system']).toBe('redis');
  }, 180_000);
});
