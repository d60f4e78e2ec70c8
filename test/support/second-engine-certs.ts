import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM files for a Docker engine's `--tlsverify` port: one CA, a server cert for 127.0.0.1, a client cert. */
export interface EngineCerts {
  ca: string;
  serverCert: string;
  serverKey: string;
  /** What the worker presents (`tcp.cert` and `tcp.key` in the endpoints config). */
  clientCert: string;
  clientKey: string;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A throwaway CA and the two certificates it signs, made with openssl in `dir`. */
export async function makeEngineCerts(dir: string): Promise<EngineCerts> {
  const path = (name: string) => join(dir, name);
  await run('openssl', [
    ...['req', '-x509', ...EC_KEY, '-days', '1', '-subj', '/CN=mesh test CA'],
    ...['-keyout', path('ca-key.pem'), '-out', path('ca.pem')],
  ]);
  const sign = async (name: string, subject: string, extensions: string) => {
    await writeFile(path(`${name}.ext`), extensions);
    await run('openssl', [
      ...['req', ...EC_KEY, '-subj', subject],
      ...['-keyout', path(`${name}-key.pem`), '-out', path(`${name}.csr`)],
    ]);
    await run('openssl', [
      ...['x509', '-req', '-days', '1', '-in', path(`${name}.csr`), '-CA', path('ca.pem')],
      ...['-CAkey', path('ca-key.pem'), '-CAcreateserial', '-extfile', path(`${name}.ext`)],
      ...['-out', path(`${name}-cert.pem`)],
    ]);
  };
  await sign('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  await sign('client', '/CN=mesh worker', 'extendedKeyUsage=clientAuth\n');
  return {
    ca: path('ca.pem'),
    serverCert: path('server-cert.pem'),
    serverKey: path('server-key.pem'),
    clientCert: path('client-cert.pem'),
    clientKey: path('client-key.pem'),
  };
}
