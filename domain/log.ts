import pino from 'pino';
import { activeTraceIds } from './tracer';

/**
 * The process's log: one JSON line per entry on stdout (pino, which Fastify uses too), each with
 * the trace it belongs to when traces are on (`trace_id`, `span_id`). Cross-cutting, so it sits
 * at the bottom where every layer can reach it; the level is set once at start (LOG_LEVEL).
 * Expected conditions (a paced send, a provider's 429) are not logged one by one: they are
 * counted and told once a minute (throttle/rpc-budget.ts, workers/expected-conditions.ts).
 */
const lines = {
  level: 'info',
  base: { pid: process.pid },
  mixin: activeTraceIds,
  formatters: { level: (label: string) => ({ level: label }) },
};

export const log = pino(lines);

export type LogLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export const setLogLevel = (level: LogLevelName): void => {
  log.level = level;
};

/**
 * A process's start, drain and stop lines: written whatever LOG_LEVEL says, since operators (and
 * the test stack) read them to know a process is up, draining, and what it did.
 */
export const lifecycleLog = pino(lines); // not a child: a child follows its parent's level
