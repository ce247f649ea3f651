// Imported first by main.ts: tracing is installed before the modules it instruments are loaded (see startTracing).
import { startTracing } from '@zgw/shared/dist/tracing-sdk';

export const tracing = startTracing('transfer');
