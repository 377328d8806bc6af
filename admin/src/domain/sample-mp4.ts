// The local video provider's sample, built in code so no binary sits in the
// repository. It is a well-formed ISO BMFF / MP4 container (ftyp + moov with
// mvhd) of the given duration and no media track: players and probes accept
// the file and report its duration, but there is nothing to watch. A real
// provider (VIDEO_BASE_URL) returns real videos.

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
}

const TIMESCALE = 1000;
// Identity transformation matrix (16.16 and 2.30 fixed point), as every mvhd carries.
const MATRIX = u32(0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000);

export function sampleMp4(durationSec: number): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2mp41', 'latin1'));
  const mvhd = box(
    'mvhd',
    u32(0), // version 0, flags 0
    u32(0, 0), // creation and modification time
    u32(TIMESCALE, durationSec * TIMESCALE),
    u32(0x0001_0000), // rate 1.0
    Buffer.from([0x01, 0x00, 0, 0]), // volume 1.0, reserved
    u32(0, 0), // reserved
    MATRIX,
    u32(0, 0, 0, 0, 0, 0), // pre-defined
    u32(1), // next track id
  );
  return Buffer.concat([ftyp, box('moov', mvhd)]);
}
