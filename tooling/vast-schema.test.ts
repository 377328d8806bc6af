import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VAST_SCHEMA_SOURCE, vastSchemaPath, vastSchemaProblem } from './vast-schema.ts';

describe('the IAB VAST schema the tests validate against', () => {
  it('is IAB_VAST_XSD when set, otherwise the shared copy beside the repository', () => {
    expect(vastSchemaPath({ IAB_VAST_XSD: '/opt/iab/vast4.xsd' }, '/src/adnet')).toBe('/opt/iab/vast4.xsd');
    expect(vastSchemaPath({}, '/src/adnet')).toBe('/src/shared/schemas/vast/vast4.xsd');
    expect(vastSchemaPath({ IAB_VAST_XSD: '' }, '/src/adnet')).toBe('/src/shared/schemas/vast/vast4.xsd');
  });

  it('names the path, where to download it and the variable when it is missing; nothing when it is there', () => {
    const problem = vastSchemaProblem('/nowhere/vast4.xsd', () => false) ?? '';
    expect(problem).toContain('/nowhere/vast4.xsd');
    expect(problem).toContain(VAST_SCHEMA_SOURCE);
    expect(problem).toContain('IAB_VAST_XSD=');
    expect(vastSchemaProblem('/somewhere/vast4.xsd', () => true)).toBeUndefined();
  });

  it('stops the test command with that message, and lets it go on when the file is there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vast-schema-'));
    try {
      const script = fileURLToPath(new URL('./vast-schema.ts', import.meta.url));
      const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
      const missing = spawnSync(tsx, [script], { env: { ...process.env, IAB_VAST_XSD: join(dir, 'vast4.xsd') }, encoding: 'utf8' });
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain(join(dir, 'vast4.xsd'));
      writeFileSync(join(dir, 'vast4.xsd'), '<xs:schema/>');
      const present = spawnSync(tsx, [script], { env: { ...process.env, IAB_VAST_XSD: join(dir, 'vast4.xsd') }, encoding: 'utf8' });
      expect(present.status, present.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
