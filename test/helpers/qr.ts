import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS with an ES-style `export default` in its types: the function is the module itself.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** What a phone's camera reads from a PNG picture of a QR code (undefined: nothing scannable). */
export function scanQrPng(png: Buffer): string | undefined {
  const picture = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(picture.data), picture.width, picture.height)?.data;
}
