import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { sealedDataConverter, type Config, type Pii } from '@zgw/shared';

/**
 * The API as a client of Temporal (starting transfers and imports, signalling, cancelling): connects on first use, so
 * the API starts and answers while Temporal is down, and again after a failed connect.
 */
export class TemporalClient {
  private client?: Promise<Client>;

  constructor(
    private readonly config: Config,
    private readonly pii: Pii,
  ) {}

  connect(): Promise<Client> {
    this.client ??= Connection.connect({ address: this.config.TEMPORAL_ADDRESS, connectTimeout: '5s' })
      // a start carries the request's trace to the workflow and its activities (Temporal's OpenTelemetry interceptors)
      .then(
        (connection) =>
          new Client({
            connection,
            namespace: this.config.TEMPORAL_NAMESPACE,
            interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
            // inputs are sealed in Temporal's history, as the worker seals what it adds
            dataConverter: sealedDataConverter(this.pii),
          }),
      )
      .catch((err: unknown) => {
        this.client = undefined;
        throw err;
      });
    return this.client;
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    this.client = undefined;
    await client?.connection.close();
  }
}
