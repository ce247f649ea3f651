// The failure converter of the platform's Temporal workers and clients (named by `failureConverterPath`, so the
// workflow sandbox loads it too): a failure's message and stack trace travel in its encoded attributes, which the
// payload codec seals (temporal-codec.ts).
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
