// Makes a shared object built against glibc 2.38 load on an older glibc when its only 2.38 symbols are the C23
// aliases `__isoc23_sscanf`, `__isoc23_strtol` and `__isoc23_strtoul`: each is bound to the plain function
// instead. Pure bytes in, bytes out, so no compiler or linker is needed where it runs. Only the ELF layout of
// x86-64 Linux (ELF64, little-endian) is handled; anything else is refused.

const SHT_DYNSYM = 11;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;
const VER_FLG_WEAK = 0x2;
const SYM_SIZE = 24;
const PREFIX = '__isoc23_';
/** The C23 aliases this rewrites: the rest of each name is the classic function, already in .dynstr as a suffix. */
export const ISOC23_SYMBOLS = ['__isoc23_sscanf', '__isoc23_strtol', '__isoc23_strtoul'] as const;

interface Section {
  type: number;
  offset: number;
  size: number;
  link: number;
  info: number;
}

function sections(elf: Buffer): Section[] {
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1 || elf.readUInt16LE(18) !== 62) {
    throw new Error('not an ELF64 little-endian x86-64 file');
  }
  const shoff = Number(elf.readBigUInt64LE(0x28));
  const shentsize = elf.readUInt16LE(0x3a);
  const shnum = elf.readUInt16LE(0x3c);
  return Array.from({ length: shnum }, (_, i) => {
    const at = shoff + i * shentsize;
    return {
      type: elf.readUInt32LE(at + 4),
      offset: Number(elf.readBigUInt64LE(at + 24)),
      size: Number(elf.readBigUInt64LE(at + 32)),
      link: elf.readUInt32LE(at + 40),
      info: elf.readUInt32LE(at + 44),
    };
  });
}

function only(all: Section[], type: number): Section {
  const found = all.filter((s) => s.type === type);
  if (found.length !== 1) throw new Error(`expected one section of type 0x${type.toString(16)}, found ${found.length}`);
  return found[0]!;
}

function cString(elf: Buffer, at: number): string {
  return elf.toString('latin1', at, elf.indexOf(0, at));
}

/** One required version (`.gnu.version_r` auxiliary entry): the library it is from, its name, index and where its flags sit. */
interface NeededVersion {
  file: string;
  name: string;
  index: number;
  flagsAt: number;
}

function neededVersions(elf: Buffer, verneed: Section, strtab: number): NeededVersion[] {
  const out: NeededVersion[] = [];
  let need = verneed.offset;
  for (let n = 0; n < verneed.info; n++) {
    const count = elf.readUInt16LE(need + 2);
    const file = cString(elf, strtab + elf.readUInt32LE(need + 4));
    let aux = need + elf.readUInt32LE(need + 8);
    for (let a = 0; a < count; a++) {
      out.push({
        file,
        name: cString(elf, strtab + elf.readUInt32LE(aux + 8)),
        index: elf.readUInt16LE(aux + 6),
        flagsAt: aux + 4,
      });
      aux += elf.readUInt32LE(aux + 12);
    }
    need += elf.readUInt32LE(need + 12);
  }
  return out;
}

/**
 * Returns a copy of `input` in which the three `__isoc23_*` imports are the plain `sscanf`, `strtol` and
 * `strtoul` at libc's base version (GLIBC_2.2.5), and the GLIBC_2.38 requirement, then used by nothing, is
 * marked weak so the loader only warns about it under LD_DEBUG. Throws if the file is not shaped as expected
 * (another import at 2.38, a name not found), so an unknown binary is never half-patched.
 */
export function retargetIsoc23(input: Buffer): Buffer {
  const elf = Buffer.from(input);
  const all = sections(elf);
  const dynsym = only(all, SHT_DYNSYM);
  const versym = only(all, SHT_GNU_VERSYM);
  const verneed = only(all, SHT_GNU_VERNEED);
  const strtab = all[dynsym.link]!.offset;
  const versions = neededVersions(elf, verneed, all[verneed.link]!.offset);
  const libc = (name: string) => versions.find((v) => v.file === 'libc.so.6' && v.name === name);
  const base = libc('GLIBC_2.2.5');
  const c23 = libc('GLIBC_2.38');
  if (!base || !c23) throw new Error('no libc GLIBC_2.2.5 / GLIBC_2.38 requirement: not the binary this patch is for');

  const retargeted = new Set<string>();
  for (let i = 0; i < dynsym.size / SYM_SIZE; i++) {
    const sym = dynsym.offset + i * SYM_SIZE;
    const versionAt = versym.offset + i * 2;
    if ((elf.readUInt16LE(versionAt) & 0x7fff) !== c23.index) continue;
    const nameOffset = elf.readUInt32LE(sym);
    const name = cString(elf, strtab + nameOffset);
    if (!(ISOC23_SYMBOLS as readonly string[]).includes(name) || elf.readUInt16LE(sym + 6) !== 0) {
      throw new Error(`${name} needs GLIBC_2.38 and is not one of the C23 aliases this patch handles`);
    }
    // "__isoc23_strtol\0" ends with "strtol\0": point the name into its own tail.
    elf.writeUInt32LE(nameOffset + PREFIX.length, sym);
    elf.writeUInt16LE(base.index, versionAt);
    retargeted.add(name);
  }
  if (retargeted.size !== ISOC23_SYMBOLS.length)
    throw new Error(`expected the three C23 imports, found ${[...retargeted].join(', ') || 'none'}`);
  elf.writeUInt16LE(elf.readUInt16LE(c23.flagsAt) | VER_FLG_WEAK, c23.flagsAt);
  return elf;
}
