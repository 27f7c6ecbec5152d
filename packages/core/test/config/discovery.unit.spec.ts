import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, loadConfig } from '../../src/index.js';
import { tempProject } from './config-fixture.js';

describe('config discovery', () => {
  it('reads an explicit configPath, ignoring files next to searchFrom', () => {
    const root = tempProject({ 'domain.toml': 'identity_strategy = "uuid"', 'other/custom.toml': 'event_processing = "async"' });
    const loaded = loadConfig({ configPath: path.join(root, 'other/custom.toml'), searchFrom: root, env: {} });
    expect(loaded.file).toBe(path.join(root, 'other/custom.toml'));
    expect(loaded.config.event_processing).toBe('async');
  });

  it('fails with a ConfigError naming the file when the explicit path does not exist', () => {
    const root = tempProject();
    const missing = path.join(root, 'nope.toml');
    expect(() => loadConfig({ configPath: missing, env: {} })).toThrow(ConfigError);
    expect(() => loadConfig({ configPath: missing, env: {} })).toThrow(missing);
  });

  it('prefers .domain.toml over domain.toml in the same folder', () => {
    const root = tempProject({ 'domain.toml': 'event_processing = "sync"', '.domain.toml': 'event_processing = "async"' });
    const loaded = loadConfig({ searchFrom: root, env: {} });
    expect(loaded.file).toBe(path.join(root, '.domain.toml'));
    expect(loaded.config.event_processing).toBe('async');
  });

  it('finds the file one and two parent folders up', () => {
    const root = tempProject({ 'domain.toml': 'command_processing = "async"', 'src/domain/x.ts': '' });
    expect(loadConfig({ searchFrom: path.join(root, 'src'), env: {} }).file).toBe(path.join(root, 'domain.toml'));
    expect(loadConfig({ searchFrom: path.join(root, 'src/domain'), env: {} }).file).toBe(path.join(root, 'domain.toml'));
  });

  it('does not look three parent folders up', () => {
    const root = tempProject({ 'domain.toml': 'command_processing = "async"', 'a/b/c/x.ts': '' });
    const loaded = loadConfig({ searchFrom: path.join(root, 'a/b/c'), env: {} });
    expect(loaded.file).toBeNull();
    expect(loaded.config.command_processing).toBe('sync');
  });

  it('a nearer domain.toml wins over a .domain.toml further up', () => {
    const root = tempProject({ '.domain.toml': 'event_processing = "async"', 'src/domain.toml': 'event_processing = "sync"' });
    expect(loadConfig({ searchFrom: path.join(root, 'src'), env: {} }).file).toBe(path.join(root, 'src/domain.toml'));
  });

  it('accepts a module URL (import.meta.url) or a file path as searchFrom', () => {
    const root = tempProject({ 'domain.toml': 'event_processing = "async"', 'src/domain.ts': '' });
    const moduleUrl = pathToFileURL(path.join(root, 'src/domain.ts'));
    expect(loadConfig({ searchFrom: moduleUrl, env: {} }).file).toBe(path.join(root, 'domain.toml'));
    expect(loadConfig({ searchFrom: moduleUrl.href, env: {} }).file).toBe(path.join(root, 'domain.toml'));
    expect(loadConfig({ searchFrom: path.join(root, 'src/domain.ts'), env: {} }).file).toBe(path.join(root, 'domain.toml'));
  });

  it('without any file returns the complete defaults and no warnings', () => {
    const loaded = loadConfig({ searchFrom: tempProject(), env: {} });
    expect(loaded).toEqual({ config: defaultConfig(), file: null, warnings: [], environment: null, environments: [] });
  });

  it('merges programmatic overrides last', () => {
    const root = tempProject({ 'domain.toml': '[server]\nmessages_per_tick = 7\ntick_interval = 2' });
    const loaded = loadConfig({ searchFrom: root, env: {}, overrides: { server: { messages_per_tick: 9 } } });
    expect(loaded.config.server.messages_per_tick).toBe(9);
    expect(loaded.config.server.tick_interval).toBe(2);
  });

  it('applies per-database defaults to every named database', () => {
    const root = tempProject({ 'domain.toml': '[databases.reporting]\nprovider = "memory"\nmanaged = false' });
    const { databases } = loadConfig({ searchFrom: root, env: {} }).config;
    expect(databases.reporting).toEqual({ provider: 'memory', managed: false, pool_size: 10 });
    expect(databases.default).toEqual({ provider: 'memory', managed: true, pool_size: 10 });
  });

  it('returns a fresh defaults object each time', () => {
    const first = defaultConfig();
    first.outbox.external_brokers.push('mutated');
    expect(defaultConfig().outbox.external_brokers).toEqual([]);
  });
});
