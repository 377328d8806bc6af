import { imageSize } from 'image-size';

export type ImageType = 'png' | 'jpg' | 'gif' | 'webp';
export interface ImageInfo {
  type: ImageType;
  width: number;
  height: number;
  bytes: number;
}

// Identified by magic bytes, never by the file name or the declared type: a
// script renamed to .png must not be stored and served as an image. SVG is
// refused on purpose (it can carry script).
export function sniffImageType(buf: Uint8Array): ImageType | undefined {
  const b = (i: number) => buf[i] ?? -1;
  if (
    b(0) === 0x89 &&
    b(1) === 0x50 &&
    b(2) === 0x4e &&
    b(3) === 0x47 &&
    b(4) === 0x0d &&
    b(5) === 0x0a &&
    b(6) === 0x1a &&
    b(7) === 0x0a
  )
    return 'png';
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'jpg';
  if (
    b(0) === 0x47 &&
    b(1) === 0x49 &&
    b(2) === 0x46 &&
    b(3) === 0x38 &&
    (b(4) === 0x37 || b(4) === 0x39) &&
    b(5) === 0x61
  )
    return 'gif';
  if (
    b(0) === 0x52 &&
    b(1) === 0x49 &&
    b(2) === 0x46 &&
    b(3) === 0x46 &&
    b(8) === 0x57 &&
    b(9) === 0x45 &&
    b(10) === 0x42 &&
    b(11) === 0x50
  )
    return 'webp';
  return undefined;
}

/** Type and dimensions, or undefined when the bytes are not a readable PNG, JPEG, GIF or WebP. */
export function probeImage(buf: Uint8Array): ImageInfo | undefined {
  const type = sniffImageType(buf);
  if (!type) return undefined;
  try {
    const size = imageSize(buf);
    const parsed = size.type === 'jpeg' ? 'jpg' : size.type;
    if (parsed !== type || !size.width || !size.height) return undefined;
    return { type, width: size.width, height: size.height, bytes: buf.length };
  } catch {
    return undefined;
  }
}
