// The work sharp does, in whichever process runs it (sharp-pipeline.ts decides: the image helper
// process, or the server's own in Electron): reads image dimensions (as displayed, EXIF
// orientation applied) and renders thumbnails that keep the aspect ratio, never enlarge and
// refuse decompression bombs.
import fsp from 'node:fs/promises';
import type SharpType from 'sharp';

// sharp and libvips (about 25 MB resident, a quarter of a second to load) come with the first
// image, not at start.
let sharpModule: Promise<typeof SharpType> | null = null;
const loadSharp = () =>
  (sharpModule ??= import('sharp').then(({ default: sharp }) => {
    // Thumbnails are kept on disk: libvips' cache of decoded images (up to 50 MB) is not needed.
    sharp.cache(false);
    return sharp;
  }));

/** Images with more pixels than this are refused before decoding (decompression bombs). */
export const MAX_INPUT_PIXELS = 128 * 1024 * 1024;

export type ThumbFit = 'inside' | 'cover' | 'contain' | 'fill' | 'outside';
export type ThumbFormat = 'jpg' | 'png' | 'webp';

export interface ThumbSpec {
  width?: number;
  height?: number;
  fit: ThumbFit;
  /** Output format; 'auto' keeps JPEG/PNG/WebP sources as they are and makes PNG of the rest. */
  format: ThumbFormat | 'auto';
  quality?: number;
}

const inputOptions = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' as const };

/** Width and height as displayed (EXIF orientation 5-8 swaps them), or null when not an image. */
export async function probeImage(file: string): Promise<{ width: number; height: number; format: string } | null> {
  try {
    const sharp = await loadSharp();
    const meta = await sharp(file, inputOptions).metadata();
    if (!meta.width || !meta.height || !meta.format) return null;
    const swap = (meta.orientation ?? 1) >= 5;
    return { width: swap ? meta.height : meta.width, height: swap ? meta.width : meta.height, format: meta.format };
  } catch {
    return null;
  }
}

/** The extension a thumbnail of a source in `sourceFormat` gets under `spec`. */
export function thumbFormat(spec: ThumbSpec, mimeType: string): ThumbFormat {
  if (spec.format !== 'auto') return spec.format;
  if (mimeType === 'image/jpeg') return 'jpg';
  if (mimeType === 'image/webp') return 'webp';
  return 'png';
}

/** Render `source` to the new file `target` (removed again when rendering fails); returns the real size. */
export async function renderThumbnail(source: string, target: string, spec: ThumbSpec, format: ThumbFormat) {
  const sharp = await loadSharp();
  let image = sharp(source, inputOptions).autoOrient();
  if (spec.width || spec.height) {
    image = image.resize({ width: spec.width, height: spec.height, fit: spec.fit, withoutEnlargement: true });
  }
  const quality = spec.quality;
  if (format === 'jpg') image = image.jpeg({ quality: quality ?? 82, mozjpeg: true });
  else if (format === 'webp') image = image.webp({ quality: quality ?? 80 });
  else image = image.png({ compressionLevel: 9 });
  try {
    const info = await image.toFile(target);
    return { width: info.width, height: info.height };
  } catch (err) {
    await fsp.rm(target, { force: true });
    throw err;
  }
}
