import bwipjs from 'bwip-js';
import QRCode from 'qrcode';

/** The pictures a buyer scans: drawn here from the gateway's codes, so they always decode to them. */

/** A pix QR code that decodes to `code` (the copy-and-paste "BR Code"). */
export function pixQrSvg(code: string): Promise<string> {
  return QRCode.toString(code, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}

/** A boleto's barcode: interleaved 2 of 5 over its 44 digits, as the FEBRABAN layout prints it. */
export function boletoBarcodeSvg(barcode: string): string {
  return bwipjs.toSVG({ bcid: 'interleaved2of5', text: barcode, height: 13, includetext: false });
}
