// Real files for the media tests, made with sharp and by hand: a JPEG with an EXIF orientation,
// a PNG, a text file, a corrupt JPEG, and a PNG whose header claims a decompression bomb.
import zlib from 'node:zlib';
import sharp from 'sharp';

/** A 400×200 JPEG stored with EXIF orientation 6 (displayed rotated: 200×400). */
export function rotatedJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 400, height: 200, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

export function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 10, g: 120, b: 200, alpha: 1 } } }).png().toBuffer();
}

export const textFile = () => Buffer.from('Plain notes: not an image at all.\n'.repeat(20));

/** Starts like a JPEG (so it sniffs as one) and then is noise: sharp cannot decode it. */
export function corruptJpeg(): Buffer {
  const body = Buffer.alloc(3000);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7919) % 251;
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]), body]);
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A small PNG whose header says 30000×30000 pixels (900 megapixels): a decompression bomb. */
export function bombPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(30000, 0);
  ihdr.writeUInt32BE(30000, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const idat = zlib.deflateSync(Buffer.alloc(30001 * 4)); // a few rows of zeros
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** The start of an MP4 file (an `ftyp` box): sniffs as video/mp4. */
export function mp4Header(): Buffer {
  const ftyp = Buffer.from('00000018667479706d703432000000006d70343269736f6d', 'hex');
  return Buffer.concat([ftyp, Buffer.alloc(2000)]);
}
