/**
 * Self-signed TLS certificate for local development (CN=localhost,
 * SAN DNS:localhost, IP:127.0.0.1, valid one year).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { generate } from 'selfsigned';

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

export async function ensureDevCertificate(dir: string): Promise<{ certFile: string; keyFile: string }> {
  const certFile = path.resolve(dir, 'localhost.crt');
  const keyFile = path.resolve(dir, 'localhost.key');
  await fs.mkdir(path.dirname(certFile), { recursive: true });
  if ((await exists(certFile)) && (await exists(keyFile))) return { certFile, keyFile };

  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate);
  notAfterDate.setFullYear(notAfterDate.getFullYear() + 1);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'rsa',
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });

  // Key first (0600), then the certificate, so a half-written pair is regenerated next time.
  await fs.writeFile(keyFile, pems.private, { mode: 0o600 });
  await fs.chmod(keyFile, 0o600);
  await fs.writeFile(certFile, pems.cert);
  return { certFile, keyFile };
}
