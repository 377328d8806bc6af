import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledNode24, chooseEngineNode } from '../src/engine-node.ts';
import { retargetIsoc23 } from '../src/http/elf-isoc23.ts';
import { ensurePatchedUws } from '../src/http/uws.ts';

const require = createRequire(import.meta.url);
const newerBuild = join(dirname(require.resolve('@btc-vision/uwebsockets.js')), 'uws_linux_x64_137.node');
const todaysBuild = join(dirname(require.resolve('uWebSockets.js/package.json')), 'binaries', 'uws_linux_x64_115.node');

/** The dynamic symbols' names and version indexes, as `readelf` (binutils) prints them: an outside reading of the patch. */
function dynamicImports(path: string): string {
  return execFileSync('readelf', ['-W', '--dyn-syms', '-V', path], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

describe('the glibc 2.36 patch of the Node 24 uWS build', () => {
  it('binds the C23 imports to the plain functions at GLIBC_2.2.5 and leaves only a weak GLIBC_2.38 requirement', () => {
    const before = dynamicImports(newerBuild);
    expect(before).toMatch(/UND __isoc23_strtol@GLIBC_2\.38/);
    const path = ensurePatchedUws();
    const after = dynamicImports(path);
    expect(after).not.toContain('__isoc23_');
    for (const name of ['sscanf', 'strtol', 'strtoul'])
      expect(after).toMatch(new RegExp(`UND ${name}@GLIBC_2\\.2\\.5`));
    expect(after).toMatch(/Name: GLIBC_2\.38 {2}Flags: WEAK/);
    // Seven bytes differ: three names, three version indexes, one flag.
    const a = readFileSync(newerBuild);
    const b = readFileSync(path);
    expect(b.length).toBe(a.length);
    expect(a.reduce((n, byte, i) => n + (byte === b[i] ? 0 : 1), 0)).toBe(7);
  });

  it('refuses what it is not for: a patched copy, a build without the C23 imports, a non-ELF file', () => {
    expect(() => retargetIsoc23(readFileSync(ensurePatchedUws()))).toThrow(/expected the three C23 imports/);
    expect(() => retargetIsoc23(readFileSync(todaysBuild))).toThrow(/GLIBC_2\.38/);
    expect(() => retargetIsoc23(Buffer.from('#!/bin/sh\n'))).toThrow(/not an ELF64/);
  });
});

describe('ENGINE_NODE', () => {
  it('auto picks the bundled Node 24 here; current keeps this Node; a path is that binary; a wrong path stops', () => {
    expect(chooseEngineNode('auto')).toMatchObject({
      execPath: bundledNode24(),
      version: expect.stringMatching(/^v24\./),
    });
    expect(chooseEngineNode('current')).toMatchObject({ execPath: process.execPath, version: process.version });
    expect(chooseEngineNode(process.execPath).version).toBe(process.version);
    expect(() => chooseEngineNode('/nonexistent/node')).toThrow(/does not run/);
  });
});
