import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';
import { addInterval } from '../domain/periods.ts';
import type { BoletoDetails, PixDetails } from './port.ts';

/**
 * What the simulator hands the buyer for a pix charge (a BR Code and its picture) and for a boleto
 * (barcode and digitable line in the FEBRABAN layout): a QR code that scans, a barcode in the layout.
 */

/** Days a boleto may still be paid after its due date before the simulator calls it overdue. */
export const BOLETO_GRACE_DAYS = 3;

/** The end of a boleto's last payable day: its due date (YYYY-MM-DD) and the grace days after it, in UTC. */
export const boletoPayableUntil = (dueDate: string): Date =>
  addInterval(new Date(`${dueDate}T00:00:00Z`), 'day', BOLETO_GRACE_DAYS + 1);

const SIMULATOR_PIX_KEY = '7d9f0335-8dcc-4054-9bf9-0c0a1b5f8a11';
const BOLETO_BANK = '999';
const BOLETO_BASE_URL = 'https://sandbox.gateway.invalid/boletos';

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** CRC16/CCITT-FALSE, the checksum that closes a BR Code. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** Cents as the BR Code writes an amount ("1234.50"), from the integer, never through a float. */
const reais = (cents: number) => `${(cents - (cents % 100)) / 100}.${String(cents % 100).padStart(2, '0')}`;

/** A static-style BR Code (EMV QRCPS) carrying the amount, our reference and the transaction as txid. */
export function pixBrCode(input: { transactionId: string; reference: string; amount: number }): string {
  const reference = input.reference.replace(/[^\w.:-]/g, '').slice(0, 36);
  const account = tlv('00', 'br.gov.bcb.pix') + tlv('01', SIMULATOR_PIX_KEY) + tlv('02', reference);
  const txid = input.transactionId.replace(/[^A-Za-z0-9]/g, '').slice(-25);
  const payload =
    tlv('00', '01') +
    tlv('26', account) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('54', reais(input.amount)) +
    tlv('58', 'BR') +
    tlv('59', 'SANDBOX GATEWAY') +
    tlv('60', 'SAO PAULO') +
    tlv('62', tlv('05', txid)) +
    '6304';
  return payload + crc16(payload);
}

export function pixDocument(input: {
  transactionId: string;
  reference: string;
  amount: number;
  expiresAt: Date;
}): PixDetails {
  const qrCode = pixBrCode(input);
  return { qrCode, qrCodeImage: pngDataUrl(qrCode), expiresAt: input.expiresAt.toISOString() };
}

// ── Boleto ────────────────────────────────────────────────────────────────────────────────────

function mod10(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const product = Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10;
}

function mod11(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * (2 + (i % 8));
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/** Days since 1997-10-07, restarting at 1000 after 9999 (the 2025 rollover of the due-date factor). */
export function dueDateFactor(dueDate: string): string {
  const days = Math.round((Date.parse(`${dueDate}T00:00:00Z`) - Date.UTC(1997, 9, 7)) / 86_400_000);
  const factor = days > 9999 ? ((days - 1000) % 9000) + 1000 : days;
  return String(Math.max(0, factor)).padStart(4, '0');
}

export function boletoDocument(input: {
  transactionId: string;
  transactionNumber: string;
  amount: number;
  dueDate: string;
}): BoletoDetails {
  const free = input.transactionNumber.replace(/\D/g, '').padStart(25, '0').slice(-25);
  const factorAndValue = dueDateFactor(input.dueDate) + String(input.amount).padStart(10, '0');
  const head = `${BOLETO_BANK}9`;
  const dv = mod11(head + factorAndValue + free);
  const barcode = `${head}${dv}${factorAndValue}${free}`;
  const f1 = head + free.slice(0, 5);
  const f2 = free.slice(5, 15);
  const f3 = free.slice(15, 25);
  const d1 = f1 + mod10(f1);
  const d2 = f2 + mod10(f2);
  const d3 = f3 + mod10(f3);
  const digitableLine = `${d1.slice(0, 5)}.${d1.slice(5)} ${d2.slice(0, 5)}.${d2.slice(5)} ${d3.slice(0, 5)}.${d3.slice(5)} ${dv} ${factorAndValue}`;
  return { barcode, digitableLine, dueDate: input.dueDate, url: `${BOLETO_BASE_URL}/${input.transactionId}` };
}

// ── The QR code's picture ─────────────────────────────────────────────────────────────────────

const SCALE = 4;
const QUIET = 4;

/**
 * The payload as a scannable QR code (qrcode's module matrix, error correction M), drawn into a small
 * grayscale PNG: a bank app reads the same code the buyer may copy and paste.
 */
export function pngDataUrl(payload: string): string {
  const { modules } = QRCode.create(payload, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const side = (size + QUIET * 2) * SCALE;
  const raw = Buffer.alloc(side * (side + 1), 0xff);
  for (let py = 0; py < side; py++) {
    raw[py * (side + 1)] = 0; // filter type: none
    for (let px = 0; px < side; px++) {
      const x = Math.floor(px / SCALE) - QUIET;
      const y = Math.floor(py / SCALE) - QUIET;
      if (x >= 0 && y >= 0 && x < size && y < size && modules.get(y, x)) raw[py * (side + 1) + 1 + px] = 0;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // grayscale
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}
