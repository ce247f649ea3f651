import { connectMongo, loadConfig } from '@zgw/shared';

/** Activities hold every side effect of a transfer; workflows only orchestrate them. */
export async function platformReachable(): Promise<boolean> {
  const config = loadConfig();
  const mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DB);
  try {
    await mongo.db.command({ ping: 1 });
    return true;
  } finally {
    await mongo.client.close();
  }
}
