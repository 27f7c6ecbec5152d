/**
 * `Domain` is the registry and the entry point of an application: elements register with its
 * decorators (or `register`), `init()` checks the model and wires infrastructure from
 * domain.toml, and `uow`, `repositoryFor` and `process` run the application.
 *
 * The registry half lives in `ElementRegistry` (domain/registry.ts); the runtime half (units of
 * work, providers, brokers, command processing) in `DomainRuntime` (domain/runtime.ts).
 * This class only exposes them under one name.
 */
import 'reflect-metadata';
