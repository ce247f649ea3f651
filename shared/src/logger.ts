import pino, { type Logger } from 'pino';

// Nine-digit runs are BSNs (or look like them): they never reach a log line.
const NINE_DIGITS = /(?<!\d)\d{9}(?!\d)/g;

/** Removes BSN-like values from a URL or free text before it is logged. */
export function scrub(text: string): string {
  return text.replace(NINE_DIGITS, '*********');
}

export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'secret', '*.secret', 'password', '*.password'],
      censor: '[redacted]',
    },
    formatters: { level: (label) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export type { Logger };
