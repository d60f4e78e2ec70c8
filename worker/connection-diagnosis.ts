import { isIP, Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { TemporalConnectionOptions } from '../config';

/** Why a connection to Temporal failed: one sentence, what to do, and whether the config is at fault. */
export interface Diagnosis {
  sentence: string;
  suggestion: string;
  misconfigured: boolean;
}

const PROBE_MS = 3_000;
/** TLS 1.3 servers refuse a client certificate only after the client's handshake finished. */
const REFUSAL_GRACE_MS = 1_000;

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ECONNRESET']);

const CLOSED_AFTER_HANDSHAKE = 'CLOSED_AFTER_HANDSHAKE';
const REFUSED_CLIENT = /ALERT|CLOSED_AFTER_HANDSHAKE/;

type Outcome = { ok: true } | { ok: false; code: string; message: string };

/**
 * Finds out, with plain sockets, why the SDK could not connect (its own errors range from "Failed to connect
 * before the deadline" to a Rust debug dump): nothing listening, TLS on one side only, an untrusted or
 * misnamed server certificate, or a client certificate missing or refused.
 */
export async function diagnose(options: TemporalConnectionOptions, sdkMessage: string): Promise<Diagnosis> {
  const { address } = options;
  const { host, port } = hostAndPort(address);
  const unreachable = await unreachableDiagnosis(options);
  if (unreachable) return unreachable;
  const tls =
    options.tls === undefined || options.tls === null || options.tls === false ? undefined : options.tls;
  if (tls === undefined) {
    const probe = await probeTls(host, port, { rejectUnauthorized: false });
    if (probe.ok || REFUSED_CLIENT.test(probe.code)) {
      return {
        sentence: `Temporal at ${address} expects TLS, but TLS is off in this config.`,
        suggestion:
          'Turn it on with temporal.tls in the config (serverCaCertPath, and clientCertPath/clientKeyPath for mTLS) or TEMPORAL_TLS=true.',
        misconfigured: true,
      };
    }
    return answeredNoGrpc(address, sdkMessage);
  }
  const settings = tls === true ? {} : tls;
  const servername = settings.serverNameOverride ?? (isIP(host) ? undefined : host);
  const probe = await probeTls(host, port, {
    ...(settings.serverRootCACertificate ? { ca: Buffer.from(settings.serverRootCACertificate) } : {}),
    ...(settings.clientCertPair
      ? { cert: Buffer.from(settings.clientCertPair.crt), key: Buffer.from(settings.clientCertPair.key) }
      : {}),
    ...(servername !== undefined ? { servername } : {}),
  });
  if (probe.ok) return answeredNoGrpc(address, sdkMessage);
  return tlsRefusal(address, probe, Boolean(settings.clientCertPair));
}

/**
 * Why nothing answers at the address, or undefined when something does: one TCP connect, so a refused or
 * unresolvable address is said at once instead of after the SDK's connect timeout.
 */
export async function unreachableDiagnosis(
  options: TemporalConnectionOptions,
): Promise<Diagnosis | undefined> {
  const { address } = options;
  const { host, port } = hostAndPort(address);
  const reach = await probeTcp(host, port);
  if (reach.ok) return undefined;
  return {
    sentence: `Cannot reach Temporal at ${address}: ${unreachableWhy(reach.code)}.`,
    suggestion:
      'Start one with `mesh runbook dev`, or set temporal.address in the config (or TEMPORAL_ADDRESS) to your Temporal frontend.',
    misconfigured: false,
  };
}

function tlsRefusal(address: string, probe: Outcome & { ok: false }, hasClientCert: boolean): Diagnosis {
  const misconfigured = true;
  if (NOT_TLS.has(probe.code)) {
    return {
      sentence: `Temporal at ${address} does not speak TLS, but this config turns TLS on.`,
      suggestion:
        'Use the TLS port of your Temporal frontend, or set temporal.tls: false (TEMPORAL_TLS=false).',
      misconfigured,
    };
  }
  if (UNTRUSTED.has(probe.code)) {
    return {
      sentence: `The server certificate of Temporal at ${address} is not signed by a CA this config trusts (${probe.code}).`,
      suggestion:
        'Set temporal.tls.serverCaCertPath (or TEMPORAL_TLS_SERVER_CA_CERT_PATH) to the CA that signed it.',
      misconfigured,
    };
  }
  if (probe.code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      sentence: `The server certificate of Temporal at ${address} is not issued for the name this config checks (${probe.message.replace(/\.$/, '')}).`,
      suggestion:
        'Set temporal.tls.serverName (or TEMPORAL_TLS_SERVER_NAME) to a name the certificate carries.',
      misconfigured,
    };
  }
  if (
    probe.code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' ||
    (!hasClientCert && /ALERT/.test(probe.code))
  ) {
    return {
      sentence: `Temporal at ${address} requires a client certificate (mTLS), and this config has none.`,
      suggestion:
        'Set temporal.tls.clientCertPath and clientKeyPath (or TEMPORAL_TLS_CLIENT_CERT_PATH and _KEY_PATH) to the certificate issued for this worker.',
      misconfigured,
    };
  }
  if (REFUSED_CLIENT.test(probe.code)) {
    const how = probe.code === CLOSED_AFTER_HANDSHAKE ? 'it hung up after the handshake' : probe.code;
    return {
      sentence: `Temporal at ${address} refused this config's client certificate (${how}).`,
      suggestion:
        'Use a client certificate signed by a CA the Temporal frontend trusts, and check it has not expired.',
      misconfigured,
    };
  }
  return {
    sentence: `The TLS handshake with Temporal at ${address} failed: ${probe.message.replace(/\.$/, '')}.`,
    suggestion: 'Check temporal.tls in the config (or the TEMPORAL_TLS_* variables) against the server.',
    misconfigured,
  };
}

function answeredNoGrpc(address: string, sdkMessage: string): Diagnosis {
  return {
    sentence: `Temporal at ${address} accepted the connection but did not answer gRPC (${sdkMessage.split('\n')[0]?.slice(0, 200)}).`,
    suggestion:
      'Check that the address is your Temporal frontend (port 7233 by default) and that its TLS settings match.',
    misconfigured: false,
  };
}

function unreachableWhy(code: string): string {
  if (code === 'ECONNREFUSED') return 'nothing listens there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code === 'ETIMEDOUT') return `no answer within ${PROBE_MS / 1000} s`;
  return code;
}

export function hostAndPort(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address);
  return match ? { host: match[1] ?? address, port: Number(match[2]) } : { host: address, port: 7233 };
}

function probeTcp(host: string, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (outcome: Outcome) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout(PROBE_MS, () => done({ ok: false, code: 'ETIMEDOUT', message: 'timed out' }));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done({ ok: false, code: error.code ?? 'ERROR', message: error.message }),
    );
    socket.connect(port, host, () => done({ ok: true }));
  });
}

function probeTls(host: string, port: number, options: ConnectionOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const done = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(grace);
      socket.destroy();
      resolve(outcome);
    };
    const socket = tlsConnect({ host, port, ALPNProtocols: ['h2'], ...options });
    socket.setTimeout(PROBE_MS, () => done({ ok: false, code: 'ETIMEDOUT', message: 'no TLS answer' }));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done({ ok: false, code: error.code ?? 'ERROR', message: error.message }),
    );
    socket.once('close', () =>
      done({ ok: false, code: 'ECONNRESET', message: 'closed during the handshake' }),
    );
    socket.once('secureConnect', () => {
      socket.removeAllListeners('close');
      // A frontend that verifies client certificates after the handshake just hangs up on a bad one.
      socket.once('close', () =>
        done({ ok: false, code: CLOSED_AFTER_HANDSHAKE, message: 'the server closed the connection' }),
      );
      grace = setTimeout(() => done({ ok: true }), REFUSAL_GRACE_MS);
      socket.resume();
    });
  });
}
