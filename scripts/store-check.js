#!/usr/bin/env node
// After `npm test`: every query the tests sent to the local store and that it answered from an index was also answered
// by a scan and compared (ZGW_MONGO_VERIFY=1, see local-store/src/main/java/zgw/store/QueryPlanner.java). Prints
// `store-differential: N passed, N failed` (N = queries compared) and exits 1 on any difference; the differences
// themselves are in the engine's log (`QueryPlanner: ERROR ...`). Skips, saying so, when the engine was started
// without verification or the engines are not the local store.
const { MongoClient } = require('mongodb');

(async () => {
  const url = process.env.MONGODB_URL;
  if (!url) {
    console.log('store-differential: not run (no MONGODB_URL)');
    return;
  }
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 5000 });
  try {
    const stats = await client.db('zgw_store_check').command({ zgwQueryStats: 1 }).catch(() => undefined);
    if (!stats) {
      console.log('store-differential: not run (the engine is not the local store)');
    } else if (!stats.verify) {
      console.log('store-differential: not run (the local store was started without ZGW_MONGO_VERIFY=1)');
    } else {
      const failed = Number(stats.mismatches);
      console.log(`store-differential: ${Number(stats.verified) - failed} passed, ${failed} failed`);
      if (failed) {
        console.log('  queries answered differently from an index than by a scan: see "QueryPlanner: ERROR" in the mongo engine log');
        process.exitCode = 1;
      }
    }
  } finally {
    await client.close();
  }
})().catch((e) => {
  console.log(`store-differential: 0 passed, 1 failed (${e.message})`);
  process.exitCode = 1;
});
