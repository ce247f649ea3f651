import { MongoClient, type Db } from 'mongodb';
import { logQueryShapes } from './query-shapes';
import { tenantDb } from './tenant';

export interface Mongo {
  client: MongoClient;
  db: Db;
}

/**
 * Connects to MongoDB. The database handle restricts every query to the current tenant (see tenant.ts). With
 * `ZGW_QUERY_LOG=<dir>` (set by `npm test`) every query shape is recorded there too.
 */
export async function connectMongo(url: string, dbName: string): Promise<Mongo> {
  const queryLog = process.env.ZGW_QUERY_LOG;
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000, maxPoolSize: 50, ...(queryLog ? { monitorCommands: true } : {}) });
  if (queryLog) logQueryShapes(client, queryLog);
  await client.connect();
  return { client, db: tenantDb(client.db(dbName)) };
}
