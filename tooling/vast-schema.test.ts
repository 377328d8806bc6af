import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VAST_SCHEMA_SOURCE, iabVastSchema, iabVastSchemaOf, vastSchemaNotice, vastSchemaPath } from './vast-schema.ts';

describe('the IAB VAST schema the tests also validate against, where it is at hand', () => {
  it('is IAB_VAST_XSD when set, otherwise the shared copy beside the repository', () => {
    expect(vastSchemaPath({ IAB_VAST_XSD: '/opt/iab/vast4.xsd' }, '/src/adnet')).toBe('/opt/iab/vast4.xsd');
    expect(vastSchemaPath({}, '/src/adnet')).toBe('/src/shared/schemas/vast/vast4.xsd');
    expect(vastSchemaPath({ IAB_VAST_XSD: '' }, '/src/adnet')).toBe('/src/shared/schemas/vast/vast4.xsd');
    expect(iabVastSchema({}, '/src/adnet', () => false)).toBeUndefined();
    expect(iabVastSchema({}, '/src/adnet', () => true)).toBe('/src/shared/schemas/vast/vast4.xsd');
  });

  it('finds the 2.0 and 3.0 schemas beside the 4.0 one, each only where its file is', () => {
    const root = '/src/adnet';
    const all = { root, exists: () => true };
    expect(iabVastSchemaOf('4.0', {}, all)).toBe('/src/shared/schemas/vast/vast4.xsd');
    expect(iabVastSchemaOf('3.0', {}, all)).toBe('/src/shared/schemas/vast/vast3_draft.xsd');
    expect(iabVastSchemaOf('2.0', { IAB_VAST_XSD: '/opt/iab/vast4.xsd' }, all)).toBe('/opt/iab/vast_2.0.1.xsd');
    const onlyFour = { root, exists: (p: string) => p.endsWith('vast4.xsd') };
    expect(iabVastSchemaOf('4.0', {}, onlyFour)).toBe('/src/shared/schemas/vast/vast4.xsd');
    expect(iabVastSchemaOf('2.0', {}, onlyFour)).toBeUndefined();
    expect(iabVastSchemaOf('3.0', {}, { root, exists: () => false })).toBeUndefined();
  });

  it('notes a bare clone (structure only) without stopping, and stops when IAB_VAST_XSD names a missing file', () => {
    const bare = vastSchemaNotice({}, '/src/adnet', () => false);
    expect(bare?.error).toBe(false);
    expect(bare?.message).toContain('structural check');
    expect(bare?.message).toContain(VAST_SCHEMA_SOURCE);
    const named = vastSchemaNotice({ IAB_VAST_XSD: '/nowhere/vast4.xsd' }, '/src/adnet', () => false);
    expect(named?.error).toBe(true);
    expect(named?.message).toContain('/nowhere/vast4.xsd');
    expect(vastSchemaNotice({}, '/src/adnet', () => true)).toBeUndefined();
  });

  it('exits 1 only for a named schema that is missing; 0 on a bare clone and with the schema', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vast-schema-'));
    try {
      const script = fileURLToPath(new URL('./vast-schema.ts', import.meta.url));
      const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
      const run = (env: Record<string, string>) =>
        spawnSync(tsx, [script], { env: { ...process.env, ...env }, encoding: 'utf8' });
      const missing = run({ IAB_VAST_XSD: join(dir, 'vast4.xsd') });
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain(join(dir, 'vast4.xsd'));
      writeFileSync(join(dir, 'vast4.xsd'), '<xs:schema/>');
      const present = run({ IAB_VAST_XSD: join(dir, 'vast4.xsd') });
      expect(present.status, present.stderr).toBe(0);
      expect(present.stderr).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Two tsx start-ups: seconds on a busy machine.
  }, 30_000);
});
