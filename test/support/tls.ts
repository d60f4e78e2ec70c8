import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The name the test server certificate is issued for; clients must send it (server name override). */
export const SERVER_NAME = 'temporal.mesh.test';

/** PEM files made by `openssl` in a scratch dir: one CA, a server cert, a client cert, and a rogue client. */
export interface TestCertificates {
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** A server certificate for 127.0.0.1, for endpoints that cannot override the name (Docker's). */
  ipServerCert: string;
  ipServerKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate from another CA, which the terminator must refuse. */
  rogueCert: string;
  rogueKey: string;
}

async function openssl(dir: string, ...args: string[]): Promise<void> {
  await run('openssl', args, { cwd: dir });
}

async function authority(dir: string, name: string): Promise<void> {
  await openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
  );
}

async function leaf(dir: string, ca: string, name: string, extensions: string): Promise<void> {
  await openssl(
    dir,
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  );
  await writeFile(join(dir, `${name}.ext`), extensions);
  await openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.pem`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.pem`,
  );
}

/** A CA, a server certificate for SERVER_NAME only, and client certificates, made now in `dir`. */
export async function makeCertificates(dir: string): Promise<TestCertificates> {
  const usage = (eku: string) =>
    `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=${eku}\n`;
  await authority(dir, 'ca');
  await authority(dir, 'rogue-ca');
  await leaf(dir, 'ca', 'server', `${usage('serverAuth')}subjectAltName=DNS:${SERVER_NAME}\n`);
  await leaf(dir, 'ca', 'ip-server', `${usage('serverAuth')}subjectAltName=IP:127.0.0.1\n`);
  await leaf(dir, 'ca', 'client', usage('clientAuth'));
  await leaf(dir, 'rogue-ca', 'rogue', usage('clientAuth'));
  const at = (file: string) => join(dir, file);
  return {
    caCert: at('ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    ipServerCert: at('ip-server.pem'),
    ipServerKey: at('ip-server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
    rogueCert: at('rogue.pem'),
    rogueKey: at('rogue.key'),
  };
}

/** A listening TLS terminator: `accepted` verified clients, `refused` handshakes without a trusted client cert. */
export interface TlsTerminator {
  address: string;
  accepted: number;
  refused: number;
  close(): Promise<void>;
}

/**
 * A real TLS terminator like a production frontend's: it REQUIRES a client certificate signed by the CA,
 * negotiates HTTP/2 (ALPN h2, which gRPC needs), and pipes the decrypted bytes to a plain upstream
 * (the Temporal dev server's gRPC port, or the Docker engine's unix socket).
 */
export async function startTlsTerminator(
  certs: TestCertificates,
  upstream: { port: number; host?: string } | { path: string },
  serves: 'grpc' | 'docker' = 'grpc',
): Promise<TlsTerminator> {
  const grpc = serves === 'grpc';
  const sockets = new Set<Socket>();
  const server: Server = createServer(
    {
      key: readFileSync(grpc ? certs.serverKey : certs.ipServerKey),
      cert: readFileSync(grpc ? certs.serverCert : certs.ipServerCert),
      ca: readFileSync(certs.caCert),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: [grpc ? 'h2' : 'http/1.1'],
    },
    (client: TLSSocket) => {
      terminator.accepted += 1;
      const plain = 'path' in upstream ? connect(upstream.path) : connect(upstream.port, upstream.host);
      for (const socket of [client, plain]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(plain).pipe(client);
      client.on('close', () => plain.destroy());
      plain.on('close', () => client.destroy());
    },
  );
  const terminator: TlsTerminator = {
    address: '',
    accepted: 0,
    refused: 0,
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
  server.on('tlsClientError', () => (terminator.refused += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  terminator.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return terminator;
}
