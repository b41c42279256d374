import http from 'node:http';
import https from 'node:https';
import { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import { ApiError } from '../../use-cases/errors.ts';

const TLS_HANDSHAKE = 0x16;

/**
 * One port that speaks TLS and, only to refuse it, plain HTTP: the first byte of a connection tells
 * which. A plain request then gets our 403 error body instead of a garbled handshake failure.
 */
export function tlsServerFactory(tls: { key: Buffer; cert: Buffer }): FastifyServerFactory {
  return (handler) => {
    const secure = https.createServer({ key: tls.key, cert: tls.cert }, handler);
    const plain = http.createServer(handler);
    const tlsListeners = secure.listeners('connection') as ((socket: Socket) => void)[];
    secure.removeAllListeners('connection');
    secure.on('connection', (socket: Socket) => {
      socket.once('data', (chunk: Buffer) => {
        socket.pause();
        socket.unshift(chunk);
        if (chunk[0] === TLS_HANDSHAKE) for (const listener of tlsListeners) listener.call(secure, socket);
        else plain.emit('connection', socket);
        process.nextTick(() => socket.resume());
      });
    });
    return secure;
  };
}

/**
 * Rejects every request that did not arrive over HTTPS (directly, or through a trusted proxy). A
 * request made in process (`app.inject`, by a dashboard page that itself came over HTTPS) has no
 * network socket at all, and is let through.
 */
export function requireHttps(app: FastifyInstance, mode: 'tls' | 'proxy'): void {
  // A callback hook, not an async one: it runs on every request, and a promise per hook adds up.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!(request.raw.socket instanceof Socket)) return done();
    const secure =
      mode === 'tls'
        ? (request.raw.socket as TLSSocket).encrypted === true
        : request.headers['x-forwarded-proto']?.toString().split(',')[0]?.trim() === 'https';
    if (secure) return done();
    done(new ApiError(403, 'https_required', 'HTTPS is required', 'Plain HTTP requests are not served'));
  });
}
