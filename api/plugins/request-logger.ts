import type { FastifyBaseLogger, LogLevel } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

/**
 * Each request's logger (its id bound), made only once the request logs at a level that is on:
 * pino's child serializes its bindings when made, a cost per request that a process logging at
 * `warn` or above (where a request that succeeds logs nothing) need not pay.
 */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger as PinoLogger, bindings, options);
}

/** Fastify's own logger is pino's, which can say whether a level is on. */
type PinoLogger = FastifyBaseLogger & { isLevelEnabled(level: LogLevel): boolean };

class LazyRequestLogger implements FastifyBaseLogger {
  readonly #parent: PinoLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: PinoLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  #write(level: LogLevel, args: unknown[]): void {
    if (!this.#parent.isLevelEnabled(level)) return;
    const logger = this.#logger as unknown as Record<LogLevel, (...a: unknown[]) => void>;
    logger[level](...args);
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#write('error', args);
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }

  info(...args: unknown[]): void {
    this.#write('info', args);
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }
}
