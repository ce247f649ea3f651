import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

// Nine-digit runs are BSNs (or look like them): they never reach a log line, written plainly or percent-encoded
// (`%31` is `1`) in a URL. UUIDs (request ids, resource URLs) are left whole, whatever digits they hold.
const DIGIT = String.raw`(?:\d|%3\d)`;
const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const BSN_LIKE = new RegExp(`(${UUID})|(?<!${DIGIT})${DIGIT}{9}(?!${DIGIT})`, 'g');
const MASK = '*********';

/**
 * Names of fields and query parameters that carry a natural person's identifier (a BSN, an A-nummer, an
 * anpIdentificatie): their value is masked whatever its form.
 */
export const PERSONAL_ID_NAME = /(bsn|a_nummer|anpidentificatie)$/i;

/** Removes BSN-like values from a URL or free text before it is logged. */
export function scrub(text: string): string {
  return text.replace(BSN_LIKE, (match, uuid?: string) => uuid ?? MASK);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** A request URL for the log: the value of every query parameter named for a personal identifier (`…inpBsn`, `bsn`, `…inpA_nummer`, `…anpIdentificatie`) masked whatever its form, then scrubbed. */
export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return scrub(url);
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq > 0 && PERSONAL_ID_NAME.test(decoded(pair.slice(0, eq)).trim()) ? `${pair.slice(0, eq)}=${MASK}` : pair;
    });
  return scrub(`${url.slice(0, q)}?${params.join('&')}`);
}

/** The product's logger (JSON lines to stdout, or to `destination`). */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name,
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'secret', '*.secret', 'password', '*.password'],
      censor: '[redacted]',
    },
    formatters: { level: (label) => ({ level: label }) },
    timestamp: pino.stdTimeFunctions.isoTime,
    // The last word on every line, whatever put a BSN in it (an error message quoting a document, a URL, a field).
    hooks: { streamWrite: scrub },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { DestinationStream, Logger };
